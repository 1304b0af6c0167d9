import { docs } from '../routes';

/** The document `GET /openapi.json` serves, built from the routes without starting anything. */
export function openApiDocument() {
  return docs.document();
}
