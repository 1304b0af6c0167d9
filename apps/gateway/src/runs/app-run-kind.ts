import {
  AppRunPageSchema,
  AppRunSchema,
  CreateAppRunBody,
  ErrorBody,
  ListAppRunsQuery,
  ValidationErrorBody,
} from '@weft/contracts';
import type { RunKind } from './run-kind';

/**
 * Runs of an app: POST /app-runs names the app, and the run executes the
 * app's agent at its active version. Inputs follow the app's own definitions
 * (options, selection bounds) and a violation is one 400 naming each problem.
 */
export const appRunKind: RunKind<'app'> = {
  name: 'app',
  path: '/app-runs',
  tag: 'app-runs',
  catalogField: 'app_id',
  showsVersion: false,
  listsReviewWait: false,
  schemas: { create: CreateAppRunBody, run: AppRunSchema, page: AppRunPageSchema, listQuery: ListAppRunsQuery },

  docs: {
    list: { summary: "List the organization's app runs", page: 'A page of app runs, newest first' },
    create: {
      summary: 'Run an app',
      created: 'The run: in_progress, or failed at once with insufficient_credits',
      errors: {
        400: {
          description:
            "Inputs break the app's rules (unknown or missing inputs, values outside options or selection bounds); nothing is claimed",
          schema: ErrorBody,
        },
        404: { description: 'App not found or not accessible', schema: ErrorBody },
        422: { description: 'Malformed body (e.g. external_id over 255 characters)', schema: ValidationErrorBody },
      },
    },
    get: { summary: 'Get an app run', found: 'The app run' },
    graph: { summary: "The flow of an app run's agent version, as nodes and edges" },
    events: { summary: 'Follow an app run live (Server-Sent Events)' },
    cancel: { summary: 'Cancel an app run' },
  },
};
