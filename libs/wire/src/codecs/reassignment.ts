import { eventFormatSchema as updatesEventFormatSchema } from './updates';

/**
 * Wire shapes of reassignment submission: the JSON schemas of SubmitAndWaitForReassignmentRequest and
 * SubmitReassignmentRequest (every key optional, as the reference's relaxed codec pre-fills absent keys; wrong JSON types
 * are decode errors), and the rendering of JsReassignment from a stored reassignment.
 */

const str = { type: 'string' } as const;
const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties }) as const;
const oneofCase = (properties: Record<string, unknown>) => obj({ value: obj(properties) });

/** The event format of a reassignment request is the updates' (one schema for both; it may be null). */
const eventFormatSchema = { ...updatesEventFormatSchema, type: ['object', 'null'] } as const;

export const reassignmentCommandsSchema = {
  type: ['object', 'null'],
  properties: {
    workflowId: str,
    userId: str,
    commandId: str,
    submitter: str,
    submissionId: str,
    commands: {
      type: 'array',
      items: obj({
        command: {
          type: 'object',
          properties: {
            UnassignCommand: oneofCase({ contractId: str, source: str, target: str }),
            AssignCommand: oneofCase({ reassignmentId: str, source: str, target: str }),
            Empty: { type: 'object' },
          },
          additionalProperties: false,
          maxProperties: 1,
        },
      }),
    },
  },
} as const;

export const submitAndWaitForReassignmentSchema = {
  type: 'object',
  properties: { reassignmentCommands: reassignmentCommandsSchema, eventFormat: eventFormatSchema },
} as const;

export const submitReassignmentSchema = {
  type: 'object',
  properties: { reassignmentCommands: reassignmentCommandsSchema },
} as const;
