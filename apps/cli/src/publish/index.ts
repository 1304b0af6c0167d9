export { publishFile, publishDefinition, type PublishReport, type PublishOptions } from './publish';
export { readCatalogFile, parseCatalogFile, CatalogFileSchema, type CatalogFile } from './catalog-file';
export { registerPublishCommand } from './command';
