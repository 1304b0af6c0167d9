// @weft/credentials: organizations' own provider credentials, sealed at rest
// with AES-256-GCM under CREDENTIALS_KEY (rotatable key versions).
export { newKeyEntry, parseKeyring, type Keyring, type Sealed } from './keyring';
export { CredentialStore, credentialStoreFor, type CredentialRecord, type NewCredential } from './credential-store';
export { credentialsEnvShape } from './credentials-env';
