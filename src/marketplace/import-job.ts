/** The job's data: which import to process (the payload stays in the database). */
export interface ImportJob {
  tenantId: number;
  importId: number;
}
