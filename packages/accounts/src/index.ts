export {
  API_KEY_PREFIX_LENGTH,
  API_KEY_SECRET_LENGTH,
  apiKeyMatches,
  generateApiKey,
  parseApiKey,
} from './api-key-format';
export {
  createApiKey,
  findApiKey,
  issueApiKey,
  markApiKeyRevoked,
  retryOnPrefixCollision,
  type ApiKeyRow,
  type IssuedApiKey,
} from './api-keys';
export { createOrganization, organizationExists, type CreatedOrganization } from './organizations';
