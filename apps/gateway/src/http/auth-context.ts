/** Who is calling and on behalf of which organization; set by authentication. */
export interface AuthContext {
  organizationId: string;
  /** `key:<api key id>` or `user:<jwt sub>`: the identity rate limits are counted for. */
  subject: string;
  kind: 'api_key' | 'jwt';
}
