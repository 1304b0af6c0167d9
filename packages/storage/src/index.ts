export * from './s3-storage';
