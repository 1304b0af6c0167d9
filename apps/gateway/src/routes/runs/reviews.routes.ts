import { ErrorBody, IdParam, ReviewDecisionBody, ValidationErrorBody, z } from '@weft/contracts';
import { defineRoute, type AnyRoute } from '../../http/define-route';

const ReviewPath = z.object({ run_id: IdParam, review_id: IdParam });

// Reviews of app runs are decided here too: the path names the run, whatever its kind.
export const decideReviewRoute = defineRoute({
  method: 'post',
  path: '/runs/:run_id/reviews/:review_id',
  summary: 'Approve or retry a pending human review',
  tags: ['runs'],
  auth: 'api',
  request: { params: ReviewPath, body: ReviewDecisionBody },
  responses: {
    204: {
      description:
        'Decided: the run continues (approve), or the nodes upstream of the review back to the nearest ' +
        'provider nodes run again and the review proposes their new output (retry)',
    },
    404: { description: 'Run or review not found or not accessible', schema: ErrorBody },
    409: { description: 'The review is not pending (already decided, or the run has ended)', schema: ErrorBody },
    422: { description: 'Bad decision or output', schema: ValidationErrorBody },
  },
  handler: async ({ deps, auth, params, body }) => {
    await deps.engine.decideReview(auth.organizationId, params.run_id, params.review_id, body);
    return { status: 204 };
  },
});

export const reviewRoutes = [decideReviewRoute] as AnyRoute[];
