import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import * as prettier from 'prettier';

export const CLIENT_SCHEMA_PATH = 'src/client/schema.ts';

/** The typed client's types for `document`, as `npm run openapi` writes them (Prettier-clean). */
export async function clientSchemaSource(document: object): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
  const text = `${COMMENT_HEADER}// Generated from openapi.json by \`npm run openapi\`.\n\n${astToString(ast)}`;
  const options = await prettier.resolveConfig(CLIENT_SCHEMA_PATH);
  return prettier.format(text, { ...options, filepath: CLIENT_SCHEMA_PATH });
}
