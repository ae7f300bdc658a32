/** pg-boss 10's statement builders (no typings of its own); used to recognise two of them. */
declare module 'pg-boss/src/plans.js' {
  export function completeJobs(schema: string): string;
  export function failJobsById(schema: string): string;
}
