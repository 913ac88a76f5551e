/** ObjectMeta on the wire. */
export interface JsObjectMeta {
  resourceVersion: string;
  annotations: Record<string, string>;
}

export const objectMetaSchema = {
  type: 'object',
  properties: {
    resourceVersion: { type: 'string' },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

export const fieldMaskSchema = {
  type: 'object',
  properties: { paths: { type: 'array', items: { type: 'string' } }, unknownFields: { type: 'object' } },
} as const;
