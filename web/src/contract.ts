// The browser's types of what the gateway sends, made from the v1 contract itself: protoc-gen-es
// generates a JSON type per proto message (src/gen, `make web`), and the types below map them
// to the JSON the gateway writes (protobuf's json_format with the proto field names:
// `score_a`, not `scoreA`; enums by name, 64-bit integers as strings).  Only types are
// imported, so the generated code adds no byte to the bundle, and a field renamed or retyped
// in proto/ fails `tsc` wherever the page reads it.
//
// Two shapes: `Full` for the messages the gateway sends with every field (views, game data,
// match facts, the event stream: `to_json`), where a scalar, enum, list or map is always
// present and only a sub-message may be absent (as may a scalar marked `optional` or inside a
// `oneof`, which no message read in full has); `Compact` for the long lists sent without
// their unset fields (legal commands and a command's events: `compact_json`), where any field
// may be absent and reads as its default.

import type { DecisionRecordJson, EventEnvelopeJson } from './gen/frontier/v1/events_pb';
import type { ForestJson, GameDataJson, MatchInfoJson, QuestJson } from './gen/frontier/v1/game_data_pb';
import type { MatchSummaryJson, WatchEventsResponseJson, WatchTurnsResponseJson } from './gen/frontier/v1/match_pb';
import type { CardJson, ClearingJson, ClearingViewJson, EventJson, LegalCommandJson, SeatViewJson, ViewJson } from './gen/frontier/v1/types_pb';

/** A JSON name (`scoreA`) as its proto field name (`score_a`): each capital becomes `_` and
 *  its lower case.  Exact for this contract, whose field names have no `_` before a digit. */
type Snake<S extends string, Done extends string = ''> =
  S extends `${infer H}${infer T}` ? Snake<T, `${Done}${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}`> : Done;

/** A proto message as JSON (not a list, map or scalar): the one kind json_format may leave out. */
type IsMessage<V> = V extends readonly unknown[] ? false : V extends object ? (string extends keyof V ? false : true) : false;
type MessageKeys<T> = { [K in keyof T]-?: IsMessage<NonNullable<T[K]>> extends true ? K : never }[keyof T];

/** What `to_json` writes: every field present but sub-messages, which are absent when unset. */
export type Full<T> =
  T extends readonly (infer U)[] ? Full<U>[] :
  T extends object ? (string extends keyof T ? { [key: string]: Full<T[string]> } : FullMessage<T>) : T;
type FullMessage<T> =
  { [K in Exclude<keyof T, MessageKeys<T>> as Snake<K & string>]-?: Full<NonNullable<T[K]>> } &
  { [K in MessageKeys<T> as Snake<K & string>]?: Full<NonNullable<T[K]>> };

/** What `compact_json` writes: any field may be absent (and reads as its default). */
export type Compact<T> =
  T extends readonly (infer U)[] ? Compact<U>[] :
  T extends object ? (string extends keyof T ? { [key: string]: Compact<T[string]> } : { [K in keyof T as Snake<K & string>]?: Compact<NonNullable<T[K]>> }) : T;

// ----- the contract's messages, as the page reads them ------------------------------------------
export type View = Full<ViewJson>;
export type SeatView = Full<SeatViewJson>;
export type ClearingView = Full<ClearingViewJson>;
export type GameData = Full<GameDataJson>;
export type ClearingData = Full<ClearingJson>;
export type ForestData = Full<ForestJson>;
export type CardData = Full<CardJson>;
export type QuestData = Full<QuestJson>;
export type MatchInfo = Full<MatchInfoJson>;
export type TurnNotice = Full<WatchTurnsResponseJson>;
export type DecisionRecord = Full<DecisionRecordJson>;
/** One server-sent event of the public stream (a WatchEventsResponse). */
export type WatchedEvent = Full<WatchEventsResponseJson>;
/** An event with its place in the stream: in full from the stream, compact in a command's reply. */
export type Envelope = Compact<EventEnvelopeJson>;
export type GameEvent = Compact<EventJson>;
/** A legal command: compact, but its id is never empty, so always there. */
export type LegalCommand = Compact<LegalCommandJson> & { id: string };

// ----- the gateway's own replies, which wrap those messages --------------------------------------
/** A seat as the gateway lists it (its own status names: `open`, `bot`, `host`, ...). */
export interface SeatEntry { seat: string; status: string; bot: string; holder?: string }
/** GET /api/matches: ListMatches' summaries, with the seats as the gateway names them. */
export type MatchRow = Omit<Full<MatchSummaryJson>, 'seats'> & { seats: SeatEntry[]; bot_seats: string[] };
export interface MatchPage { matches: MatchRow[]; next_page_token: string }
/** GET /api/matches/ID/info. */
export interface MatchInfoReply { info: MatchInfo; initial_view: View; seats: SeatEntry[] }
/** GET /api/matches/ID/view. */
export interface ViewReply { view: View }
/** GET /api/matches/ID/legal. */
export interface LegalReply { commands: LegalCommand[]; version: string }
/** POST /api/matches/ID/commands: the command's events and the seat's next choices and view. */
export interface CommandReply { version: string; to_act: string; winner: string; events: Envelope[]; next_legal: LegalCommand[]; view?: View }
/** POST /api/matches. */
export interface CreatedMatch { match_id: string; invites: { seat: string; invite_code: string }[]; bot_seats: string[]; host_token: string; host_link: string }
/** POST /api/matches/ID/claim. */
export interface ClaimedSeat { seat: string; token: string }
/** POST /api/matches/ID/reissue: the seat's new token and its link. */
export interface ReissuedSeat { seat: string; token: string; link: string }
/** The event stream's last event: how the match ended (a MatchStatus name). */
export interface StreamEnd { status: string }
