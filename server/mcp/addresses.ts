// The OAuth addresses of the tool endpoint, derived from the public address alone (RFC 8414, RFC 9728): the
// authorization server, the token handler and the discovery routes all name the same three.
export interface McpAddresses {
  /** The issuer: the ladder's public address. */
  issuer: string;
  /** The canonical /mcp address: the resource and every access token's audience. */
  resource: string;
  /** RFC 9728 metadata of the resource. */
  resourceMetadata: string;
}

export function addresses(publicUrl: string): McpAddresses {
  return {
    issuer: publicUrl,
    resource: `${publicUrl}/mcp`,
    resourceMetadata: `${publicUrl}/.well-known/oauth-protected-resource/mcp`,
  };
}
