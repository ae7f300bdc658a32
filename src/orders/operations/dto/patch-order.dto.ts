import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, registerDecorator } from 'class-validator';
import { hasCharLength } from '../../../common/char-length.js';
import { isPlainRecord } from '../../../common/http/validated.js';
import { KeysAsSent, Text } from '../../../common/validation.js';
import {
  MAX_METADATA_KEYS,
  MAX_TAGS,
  METADATA_VALUE_MAX,
  isMetadataKey,
  isTag,
} from '../order-patch.js';

/** Each element a tag: 1–40 characters, no control characters. */
function Tags(): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'tags',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message:
          'each tag must be 1 to 40 characters on one line, not blank, without control characters',
      },
      validator: { validate: (value: unknown) => Array.isArray(value) && value.every(isTag) },
    });
  };
}

/** An object of metadata keys, each a string value or null (removes the key, RFC 7396). */
function MetadataPatch(): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'metadataPatch',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `must be an object of at most ${2 * MAX_METADATA_KEYS} keys of 1 to 40 characters from [A-Za-z0-9_.-] (not __proto__, constructor or prototype), each a string of at most ${METADATA_VALUE_MAX} characters or null`,
      },
      validator: {
        validate: (value: unknown) =>
          isPlainRecord(value) &&
          Object.keys(value).length <= 2 * MAX_METADATA_KEYS &&
          Object.entries(value).every(
            ([key, v]) =>
              isMetadataKey(key) &&
              (v === null || (typeof v === 'string' && hasCharLength(v, 0, METADATA_VALUE_MAX))),
          ),
      },
    });
  };
}

/**
 * `PATCH /v1/orders/{id}`, as `application/json` or `application/merge-patch+json`: every
 * field optional; `metadata` merges (RFC 7396), `tags` replaces the set, `note` replaces.
 */
export class PatchOrderDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 5000, example: 'Gift wrap' })
  @IsOptional()
  @Text(0, 5000)
  note?: string | null;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    maxItems: MAX_TAGS,
    description:
      'Replaces the set: tags of 1–40 characters, kept sorted, one per spelling regardless of case (the first wins); null empties it',
    example: ['gift', 'vip'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @Tags()
  tags?: string[] | null;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: { type: 'string', nullable: true, maxLength: METADATA_VALUE_MAX },
    description:
      'Merged into the order’s metadata (RFC 7396): a key with a string is set, a key with null removed; null removes every key. At most 50 keys after the merge',
    example: { erp_id: 'SO-10442', legacy_ref: null },
  })
  @IsOptional()
  @KeysAsSent()
  @MetadataPatch()
  metadata?: Record<string, string | null> | null;
}
