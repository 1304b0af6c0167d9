import type { RateBucket } from '@weft/rate-limit';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { AuthContext } from './auth-context';
import type { GatewayDeps } from '../deps';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * - `api`: X-Api-Key or Bearer JWT, rate limited.
 * - `admin`: Bearer ADMIN_TOKEN.
 * - `public`: nothing (health, docs).
 */
export type RouteAuth = 'api' | 'admin' | 'public';
export type { RateBucket };

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteRequest {
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the route reads, by their usual spelling (`Last-Event-ID`); matched case-insensitively. */
  headers?: z.ZodObject;
  body?: z.ZodType;
  /**
   * A multipart/form-data body, for the OpenAPI document only: the handler
   * streams and validates it itself (uploads must not be buffered).
   */
  form?: z.ZodObject;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface HandlerContext<R extends RouteRequest, A extends RouteAuth> {
  req: Request;
  res: Response;
  params: Out<R['params']>;
  query: Out<R['query']>;
  headers: Out<R['headers']>;
  body: Out<R['body']>;
  auth: A extends 'api' ? AuthContext : undefined;
  deps: GatewayDeps;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteSpec<R extends RouteRequest = RouteRequest, A extends RouteAuth = RouteAuth> {
  method: HttpMethod;
  /** Express syntax (`/agents/:agent_id`); collection paths also answer with a trailing slash. */
  path: string;
  summary: string;
  tags: string[];
  auth: A;
  /** Defaults to `default` for `api` routes. */
  rateLimit?: RateBucket;
  request?: R;
  responses: Record<number, ResponseSpec>;
  /** Hidden from the OpenAPI document (e.g. the document itself). */
  hidden?: boolean;
  /** Returns the response, or undefined when it wrote to `res` itself (HTML, streams). */
  handler: (ctx: HandlerContext<R, A>) => Promise<HandlerResult | undefined>;
}

/** Identity function whose only job is type inference for the handler's context. */
export function defineRoute<R extends RouteRequest, A extends RouteAuth>(spec: RouteSpec<R, A>): RouteSpec<R, A> {
  return spec;
}

export type AnyRoute = RouteSpec<RouteRequest, RouteAuth>;
