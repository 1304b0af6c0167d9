export * from './s3-storage';
export * from './keys';
export * from './errors';
export * from './upload';
export * from './objects';
export * from './presign';
export * from './object-facts';
