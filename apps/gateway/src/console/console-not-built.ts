import { AppError } from '@weft/errors';

/** The console's folder has no index.html: this deployment was built without it. */
export class ConsoleNotBuiltError extends AppError {
  constructor() {
    super(404, 'The console is not built in this deployment: run `npm run build`, which writes it to dist/console');
  }
}
