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
    `  Console    ${baseUrl}/console/`,
    `  API key    ${apiKey}`,
    `  Secrets    ${stateFile} (ADMIN_TOKEN, JWT_SECRET, CREDENTIALS_KEY)`,
    ...services.map((line) => `  ${line}`),
    '',
    // The example catalog belongs to this organization: GET /agents without
    // `visibility` lists the caller organization's own agents.
    '  List the agents:',
    `    curl -H "X-Api-Key: ${apiKey}" "${baseUrl}/agents"`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
