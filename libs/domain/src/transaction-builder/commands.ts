import type { StoredCreatedEvent } from '../ledger/updates';
import type { TemplateRef } from './template-id';

/** A command as the JSON API carries it, decoded (template ids parsed, arguments still JSON). */
export type TransactionCommand =
  | { kind: 'create'; templateId: string; template: TemplateRef; createArguments: unknown }
  | {
      kind: 'exercise';
      templateId: string;
      template: TemplateRef;
      contractId: string;
      choice: string;
      choiceArgument: unknown;
    }
  | {
      kind: 'createAndExercise';
      templateId: string;
      template: TemplateRef;
      createArguments: unknown;
      choice: string;
      choiceArgument: unknown;
    }
  | {
      kind: 'exerciseByKey';
      templateId: string;
      template: TemplateRef;
      contractKey: unknown;
      choice: string;
      choiceArgument: unknown;
    };

/** The JSON API's name of a command kind. */
export const commandName = (c: TransactionCommand): string =>
  ({
    create: 'CreateCommand',
    exercise: 'ExerciseCommand',
    createAndExercise: 'CreateAndExerciseCommand',
    exerciseByKey: 'ExerciseByKeyCommand',
  })[c.kind];

/** A contract of the `contracts` projection, as the builder needs it to exercise it. */
export interface StoredContract {
  contractId: string;
  templateId: string;
  packageName: string;
  signatories: string[];
  stakeholders: string[];
  status: 'active' | 'in_flight' | 'archived';
  synchronizerId: string | null;
  createdEvent: StoredCreatedEvent;
}
