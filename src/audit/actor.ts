/**
 * Who the audit log records as acting: `cli:<user>` for an admin (AdminContext), `app:<client_id>`
 * for an app acting through the API.
 */
export interface Actor {
  actor: string;
}

export function appActor(clientId: string): Actor {
  return { actor: `app:${clientId}` };
}
