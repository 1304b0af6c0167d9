import { envOptionalString } from '@weft/config';
import { parseKeyring } from './keyring';

/**
 * CREDENTIALS_KEY, read by the gateway (which seals what organizations store)
 * and the worker (which opens it to call providers). Unset: organizations
 * cannot store credentials, and only the deployment's serve.
 */
export const credentialsEnvShape = {
  /** `<version>:<base64 of 32 bytes>[,...]`: the highest version seals, every listed one opens. A secret. */
  CREDENTIALS_KEY: envOptionalString().superRefine((text, ctx) => {
    if (text === undefined) return;
    try {
      parseKeyring(text);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^CREDENTIALS_KEY: /, '') });
    }
  }),
};
