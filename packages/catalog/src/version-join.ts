/**
 * `JOIN agent_versions <alias> ON <alias>.id = <versionIdColumn>`: for
 * statements of other tables (a run's record shows its version number) that
 * read a version in the same statement rather than in a second round trip.
 */
export function joinAgentVersion(alias: string, versionIdColumn: string): string {
  return `JOIN agent_versions ${alias} ON ${alias}.id = ${versionIdColumn}`;
}
