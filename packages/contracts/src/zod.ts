import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// `.openapi()` must be installed before any schema is declared; every schema
// module imports `z` from here, never from 'zod' directly.
extendZodWithOpenApi(z);

export { z };
