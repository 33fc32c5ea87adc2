/**
 * `POST /internal/writes` on the gateway (for mcp-server): counts one write of the calling key
 * (from the signed context) in the same per-key limits as the REST writes.
 */
export interface WriteCountResponse {
  allowed: boolean;
  limit: number;
  remaining: number;
  reset_seconds: number;
  retry_after_seconds: number;
}
