import {
  selectReassignmentEvent,
  type RawReassignmentEventFormat,
  type ReassignmentEventFormat,
  type StoredCreatedEvent,
  type StoredReassignment,
  type UpdateHeader,
} from '@ledgerline/domain';
import { bodyDecodeError } from '../decode-error';
import { eventFormatSchema as updatesEventFormatSchema } from './updates';

/**
 * Wire shapes of reassignment submission: the JSON schemas of SubmitAndWaitForReassignmentRequest and
 * SubmitReassignmentRequest (every key optional, as the reference's relaxed codec pre-fills absent keys; wrong JSON types
 * are decode errors), and the rendering of JsReassignment from a stored reassignment.
 */

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
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

const IDENTIFIER = /^[^:]+:[^:]+:[^:]+$/;

/** Template and interface ids in an EventFormat must be `<package>:<module>:<entity>`; otherwise a decode error. */
export function checkEventFormatIdentifiers(format: RawReassignmentEventFormat | null | undefined, at = 'eventFormat'): void {
  if (!format) return;
  const check = (filters: RawReassignmentEventFormat['filtersForAnyParty'], path: string) =>
    (filters?.cumulative ?? []).forEach((c, i) => {
      const f = c.identifierFilter ?? {};
      const [id, field, kind] = f.TemplateFilter
        ? [f.TemplateFilter.value?.templateId, 'templateId', 'TemplateFilter']
        : f.InterfaceFilter
          ? [f.InterfaceFilter.value?.interfaceId, 'interfaceId', 'InterfaceFilter']
          : [undefined, '', ''];
      if (kind && !IDENTIFIER.test(id ?? '')) {
        throw bodyDecodeError(
          `Invalid identifier format (${id ?? ''}) not matching the expected format (<package>:<moduleName>:<entityName>)`,
          `${path}.cumulative[${i}].identifierFilter.${kind}.value.${field}`,
        );
      }
    });
  for (const [party, filters] of Object.entries(format.filtersByParty ?? {})) check(filters, `${at}.filtersByParty.${party}`);
  check(format.filtersForAnyParty, `${at}.filtersForAnyParty`);
}

function createdEventToJs(c: StoredCreatedEvent, offset: number, witnessParties: string[], includeBlob: boolean) {
  return {
    offset,
    nodeId: c.nodeId,
    contractId: c.contractId,
    templateId: c.templateId,
    contractKey: c.contractKey ?? null,
    contractKeyHash: c.contractKeyHash,
    createArgument: c.createArgument,
    createdEventBlob: includeBlob ? c.createdEventBlob : '',
    interfaceViews: [],
    witnessParties,
    signatories: c.signatories,
    observers: c.observers,
    createdAt: c.createdAt,
    packageName: c.packageName,
    representativePackageId: c.representativePackageId,
    acsDelta: c.acsDelta,
  };
}

/**
 * JsReassignment of a stored reassignment, its events filtered by the format (ACS_DELTA semantics); no format → no
 * events. synchronizerId/recordTime are the header's: the source for an unassignment, the target for an assignment.
 */
export function reassignmentToJs(header: UpdateHeader, data: StoredReassignment, format: ReassignmentEventFormat | null) {
  const events = data.events.flatMap((e): object[] => {
    if ('Unassigned' in e) {
      const u = e.Unassigned;
      const sel = selectReassignmentEvent(format, u);
      if (!sel) return [];
      return [
        {
          JsUnassignedEvent: {
            value: {
              reassignmentId: u.reassignmentId,
              contractId: u.contractId,
              templateId: u.templateId,
              source: u.source,
              target: u.target,
              submitter: u.submitter,
              reassignmentCounter: u.reassignmentCounter,
              assignmentExclusivity: u.assignmentExclusivity,
              witnessParties: sel.witnessParties,
              packageName: u.packageName,
              offset: header.offset,
              nodeId: u.nodeId,
            },
          },
        },
      ];
    }
    const a = e.Assigned;
    const c = a.createdEvent;
    const sel = selectReassignmentEvent(format, { stakeholders: a.stakeholders, packageName: c.packageName, templateId: c.templateId });
    if (!sel) return [];
    return [
      {
        JsAssignmentEvent: {
          source: a.source,
          target: a.target,
          reassignmentId: a.reassignmentId,
          submitter: a.submitter,
          reassignmentCounter: a.reassignmentCounter,
          createdEvent: createdEventToJs(c, header.offset, sel.witnessParties, sel.includeCreatedEventBlob),
        },
      },
    ];
  });
  return {
    updateId: header.updateId,
    commandId: data.commandId,
    workflowId: data.workflowId,
    offset: header.offset,
    events,
    traceContext: null,
    recordTime: header.recordTime,
    synchronizerId: header.synchronizerId,
    paidTrafficCost: null,
  };
}
