export interface BannerInfo {
  baseUrl: string;
  apiKey: string;
  stateFile: string;
  services: string[];
}

/** What a developer needs to start using the stack, ready to copy. */
export function formatBanner({ baseUrl, apiKey, stateFile, services }: BannerInfo): string {
  return [
    '',
    'Weft is running.',
    '',
    `  Base URL   ${baseUrl}`,
    `  API key    ${apiKey}`,
    `  Secrets    ${stateFile} (ADMIN_TOKEN, JWT_SECRET)`,
    ...services.map((line) => `  ${line}`),
    '',
    // The example catalog is public, and GET /agents without `visibility` lists
    // only the caller's own non-public agents (interface.md 4.1).
    '  List the agents:',
    `    curl -H "X-Api-Key: ${apiKey}" "${baseUrl}/agents?visibility=public"`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
