// interface.md section 2, transcribed: for each public schema, its fields and
// which are required. The OpenAPI test holds the generated document to this.
export const INTERFACE_SCHEMAS: Record<string, { fields: string[]; required: string[] }> = {
  Agent: {
    fields: ['id', 'name', 'description', 'tags', 'inputs', 'outputs', 'estimated_cost', 'has_human_review'],
    required: ['id', 'name', 'description', 'estimated_cost'],
  },
  AgentSummary: {
    fields: ['id', 'name', 'description', 'tags', 'estimated_cost', 'visibility', 'inputs', 'has_human_review'],
    required: ['id', 'name', 'description', 'estimated_cost', 'visibility'],
  },
  AgentInput: {
    fields: ['id', 'type', 'description', 'required'],
    required: ['id', 'type', 'description'],
  },
  AgentOutput: { fields: ['id', 'type', 'description'], required: ['id', 'type', 'description'] },
  AppOutput: { fields: ['id', 'type', 'description'], required: ['id', 'type', 'description'] },
  App: {
    fields: ['id', 'name', 'description', 'avatar_url', 'visibility', 'inputs', 'outputs', 'estimated_cost'],
    required: ['id', 'name', 'description', 'visibility', 'estimated_cost'],
  },
  AppSummary: {
    fields: ['id', 'name', 'description', 'avatar_url', 'visibility', 'estimated_cost', 'inputs'],
    required: ['id', 'name', 'description', 'visibility', 'estimated_cost'],
  },
  AppInput: {
    fields: ['id', 'type', 'name', 'required', 'options', 'min_selections', 'max_selections'],
    required: ['id', 'type', 'name', 'required'],
  },
  HTTPValidationError: { fields: ['detail'], required: ['detail'] },
};

/** interface.md 4.x: the status codes each public operation documents. */
export const INTERFACE_STATUSES: Record<string, number[]> = {
  'get /agents': [200],
  'get /agents/{agent_id}': [200, 404, 422],
  'get /apps': [200],
  'get /apps/{app_id}': [200],
};
