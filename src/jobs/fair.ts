// The groups that take turns on the job queues (job-queue.ts `group`): one per team, so one team's backlog never
// stands in front of another team's work.

/** The fair-queueing group of a team's jobs. */
export function teamGroup(teamId: number): string {
  return `team:${teamId}`;
}
