/** `POST /internal/writes` (mcp-server): counts one write of the calling key in the REST write limits. */
export interface WriteCountResponse {
  allowed: boolean;
  limit: number;
  remaining: number;
  reset_seconds: number;
  retry_after_seconds: number;
}
