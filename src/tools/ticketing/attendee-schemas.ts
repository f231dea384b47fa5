/** Wire schemas of attendees and questions (docs/purchase-spine.md, "Attendees and questions"). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';

/**
 * The most questions a tier asks, options a question offers, labels in other languages and places one call answers
 * (each above 20: the SDK's type generator spells a shorter bounded list as a union of tuples).
 */
export const MAX_QUESTIONS = 30;
export const MAX_LABELS = 30;
export const MAX_OPTIONS = 50;
export const MAX_ATTENDEES = 1000;

const QuestionId = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[a-z0-9][a-z0-9_-]*$/)
  .describe('The question’s id: lower-case letters, digits, - and _ (1-40), e.g. diet.');
const Option = z.string().trim().min(1).max(100);
const Label = z.string().trim().min(1).max(200);

/** One answer: text, email and choice take a string, boolean a boolean, multiple a list of options. */
const AnswerValue = z.union([z.string().max(2000), z.boolean(), z.array(Option).max(MAX_OPTIONS)]);

/** Answers by question id: a string (text, email, choice), a boolean, or a list of options (multiple). */
export const Answers = z
  .record(z.string().max(40), AnswerValue)
  .meta({
    'x-open-object': 'keyed by the tier’s question ids; an id the tier does not ask is refused (invalid_answer)',
  })
  .describe('Answers by question id, e.g. {"diet": "vegan"}: text, email, choice a string; boolean; multiple a list.');

/** A tier's attendee form, as create_tier and update_tier take it and get_event shows it. */
export const AttendeeForm = z
  .strictObject({
    name: z.enum(['off', 'optional', 'required']).describe('Whether each ticket asks for its attendee’s name.'),
    questions: z
      .array(
        z.strictObject({
          id: QuestionId,
          label: Label.describe('The question as buyers read it.'),
          labels: z
            .array(
              z.strictObject({
                lang: z.string().min(2).max(16).describe('BCP 47 tag.'),
                label: Label.describe('The label in it.'),
              }),
            )
            .max(MAX_LABELS)
            .optional()
            .describe('The label in other languages (BCP 47 tag, e.g. hu).'),
          kind: z
            .enum(['text', 'choice', 'multiple', 'boolean', 'email'])
            .describe('text, choice (one option), multiple, boolean or email.'),
          required: z.boolean().describe('Whether confirm refuses a ticket without this answer.'),
          maxLength: z.number().int().min(1).max(2000).optional().describe('text: the longest answer (default 200).'),
          options: z.array(Option).min(1).max(MAX_OPTIONS).optional().describe('choice and multiple: the options.'),
        }),
      )
      .max(MAX_QUESTIONS)
      .describe('Custom questions asked per ticket, in order.'),
  })
  .describe('The attendee name and questions asked per ticket.');

/** create_tier's and update_tier's new optional field. */
export const AttendeeFormIn = {
  attendeeForm: AttendeeForm.nullable()
    .optional()
    .describe('Per ticket: the attendee’s name (off, optional, required) and custom questions; null: none.'),
};

/** reserve's and confirm's new optional field: answers per ticket place. */
export const AttendeesIn = {
  attendees: z
    .array(
      z.strictObject({
        tierId: IdRef.describe('The tier of the ticket answered for.'),
        index: z.number().int().min(0).max(999).describe('0-based: which ticket of the tier'),
        name: z.string().trim().min(1).max(200).optional().describe('The attendee’s name.'),
        answers: Answers.optional(),
      }),
    )
    .max(MAX_ATTENDEES)
    .optional()
    .describe('Attendee name and answers per ticket, when the quote has attendeeQuestions.'),
};

/** quote's new optional output: what each tier asks (only when one asks something). */
export const AttendeeQuestionsOut = z
  .array(
    z.object({
      tierId: z.string(),
      attendeeName: z.string().max(8).describe('off, optional or required'),
      questions: z
        .array(
          z.object({
            id: z.string().max(40),
            label: z.string().max(200),
            labels: z
              .array(z.object({ lang: z.string().max(16), label: z.string().max(200) }))
              .max(MAX_LABELS)
              .optional(),
            kind: z.string().max(8).describe('text, choice, multiple, boolean or email'),
            required: z.boolean(),
            maxLength: z.number().int().optional(),
            options: z.array(z.string().max(100)).max(MAX_OPTIONS).optional(),
          }),
        )
        .max(MAX_QUESTIONS),
    }),
  )
  .max(100)
  .optional()
  .describe('What each tier asks per ticket: give `attendees` to reserve or confirm.');

/** The answers a hold carries by ticket place (get_reservation), present only when some were given. */
export const StoredAttendeesOut = z
  .array(
    z.object({
      tierId: z.string().max(100),
      index: z.number().int(),
      name: z.string().max(200).optional(),
      answers: Answers.optional(),
    }),
  )
  .max(MAX_ATTENDEES)
  .optional()
  .describe('get_reservation: the attendee answers given so far, by tier and index.');

/** A ticket's attendee, present only when the purchase gave one. */
export const TicketAttendeeOut = {
  attendeeName: z.string().max(200).optional(),
  answers: Answers.optional(),
};
