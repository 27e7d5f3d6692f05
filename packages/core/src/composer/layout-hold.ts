import type { ChatMessage, SystemMessage, UserMessage } from '../contracts/chat-message';
import type { UsageLevel } from '../contracts/llm-payload';
import type { ToolDefinition } from '../contracts/tool-definition';
import type { HeldOutputCuts } from '../ledger/held-output-cuts';
import type { MemoryBlock } from './memory-block';

/** The first groups kept in front of a cut window: history `[start, end)`, `tokens` in all. */
export interface KeptHead {
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
  /** The turn (its user message's position, plus one) the head was last used for. */
  readonly user: number;
  /** The kept messages as they were when the head was chosen (it holds while they are the same). */
  readonly messages: ReadonlyArray<ChatMessage>;
  /** The head gave way to a turn that needed its room: it stays out until the window is cut again. */
  readonly gaveWay?: boolean;
}

/** A shortened memory block as the last sent payload had it. */
export interface HeldForm {
  readonly content: string;
  readonly message: SystemMessage | UserMessage;
  readonly tokens: number;
  readonly fullTokens: number;
}

/**
 * What a layout carries over from the payload sent before (see `layoutPayload`): what a cut-back keeps
 * until the next cut (the window's start, the kept head, the current turn's output cuts, held memory
 * blocks and their shortened forms), and the sent payload itself, which the next one is measured
 * against (`repeatedPrefixTokens`). A plain record: a layout reads one and returns the next; only the
 * composer's owner commits one.
 */
export interface LayoutHold {
  /** Where the window started at the last cut back (see `cutBackRatio`), while it holds. */
  readonly start?: { readonly index: number; readonly message: ChatMessage; readonly fingerprint: string };
  /**
   * One past the newest message the sent payload used a lighter form of (see `ComposeRequest.lighter`), and the
   * message there: the forms before it are used again first while it is the same.
   */
  readonly lightened?: { readonly through: number; readonly message: ChatMessage };
  /** The conversation's first groups kept before a cut window (see `keepFirstShare`), while they hold. */
  readonly head?: KeptHead;
  /** The current turn's output cuts of the sent payload, held while they fit. */
  readonly cuts?: HeldOutputCuts;
  /** Memory blocks of the sent payload that may be sent again (see `MemoryBlock.holds`), by name. */
  readonly memory: ReadonlyMap<string, { readonly block: MemoryBlock; readonly anchor: string | undefined }>;
  /** The shortened form each memory block had in the sent payload, by name. */
  readonly forms: ReadonlyMap<string, HeldForm>;
  /**
   * The sent payload's messages and tools, the tool list it was asked with, and its usage level (`usage-level-change`).
   */
  readonly sent?: {
    readonly messages: ReadonlyArray<ChatMessage>;
    readonly tools: ReadonlyArray<ToolDefinition>;
    readonly requested: ReadonlyArray<ToolDefinition>;
    readonly level: UsageLevel;
  };
}

/** The hold of a conversation that has sent nothing yet. */
export const EMPTY_HOLD: LayoutHold = Object.freeze({ memory: new Map(), forms: new Map() });
