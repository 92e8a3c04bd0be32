// Names for people: clearings by their printed name, forests by the clearings around them,
// cards by their printed name, seats with their faction.  Every text the page shows about a
// match goes through `Names.scrub`, so no id (`autumn.hill`, `ambush_bird.1`) reaches a reader.

import { factionName, seatName } from './model';

import type { GameData } from './contract';

const ID_SHAPE = /\b[a-z][a-z_]*\.[a-z0-9_.]*[a-z0-9_]/g;

/** A word or phrase with its first letter in capitals. */
export const capitalized = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);

export const humane = (s: string): string => s.replace(/^base_(\w+)$/, '$1 base').replace(/[_./]+/g, ' ').trim();

export class Names {
  private readonly places = new Map<string, string>();
  private readonly cards = new Map<string, string>();
  private readonly paths = new Map<string, string[]>();
  private readonly maps = new Map<string, string>();
  private readonly quests = new Map<string, string>();
  constructor(data: GameData, private readonly factions: Record<string, string>) {
    const around = new Map<string, string[]>();
    for (const c of data.clearings) {
      this.places.set(c.id, c.name);
      this.paths.set(c.id, c.adjacent_ids ?? []);
      this.maps.set(c.id, c.map_name ?? '');
      for (const f of c.forest_ids ?? []) around.set(f, [...(around.get(f) ?? []), c.name]);
    }
    for (const [f, names] of around) this.places.set(f, `the forest by ${names.join(', ')}`);
    for (const c of data.cards) this.cards.set(c.id, c.name);
    for (const q of data.quests ?? []) this.quests.set(q.id, q.name);
  }

  place(id: string | undefined): string {
    if (!id) return '';
    return this.places.get(id) ?? humane(id.split('.').pop() ?? id);
  }

  // The clearings a path leads to from a clearing on its own map (the game data's; a Border
  // Bridge to the other map is left out).
  near(id: string): string[] {
    return (this.paths.get(id) ?? []).filter((c) => this.maps.get(c) === this.maps.get(id));
  }

  card(id: string): string {
    if (id === 'hidden') return 'a hidden card';
    return this.cards.get(id) ?? humane(id);
  }

  quest(id: string | undefined): string {
    return this.quests.get(id ?? '') ?? humane(id ?? '');
  }

  cardList(ids: string[] | undefined): string {
    return (ids ?? []).map((c) => this.card(c)).join(', ');
  }

  // "A1 (Marquise)"; a bare seat name when the faction is unknown.
  seat(s: string | undefined): string {
    const seat = seatName(s);
    if (!seat) return '';
    const faction = this.factions[seat] ?? '';
    return faction ? `${seat} (${capitalized(faction)})` : seat;
  }

  // Any id left in a text (a reason, a quest, an effect) as words.
  scrub(text: string): string {
    return text.replace(ID_SHAPE, (id) => (this.places.has(id) ? this.place(id) : this.cards.has(id) ? this.card(id) : humane(id)));
  }
}

export { factionName };
