// A planning policy for Frontier bots, from the typed view and the static game data only.
//
// Nothing about the game is hard-coded here: card points come from GetGameData's deck, the
// map's adjacency and slots from its clearings, and the board from the DecisionRequest's
// typed view (View.clearings, View.seats).  Each legal command gets a score in evaluation
// units (100 = one victory point, 10 = one piece) and the best one is played, ties broken by
// the bot's seeded generator:
//
// * points now: crafting (the card's printed VP), building, a battle or strike that removes
//   rival buildings and tokens when the team has more warriors there;
// * a plan for later: a move that takes or keeps rule of a clearing (R13), that brings more
//   warriors than the rival has to a clearing holding rival buildings (next action: battle),
//   or that reaches free building slots; moving the last warriors away from the team's own
//   buildings costs;
// * discarding the cards worth least; ending a step only when nothing else is worth anything.
'use strict';

const POINT = 100;
const PIECE = 10;

const teamOf = (seat) => seat.replace('SEAT_', '').charAt(0); // 'SEAT_A1' or 'A1' -> 'A'

function makePlanner(gameData, random) {
  const cards = new Map(gameData.cards.map((c) => [c.id, c]));
  const slots = new Map(gameData.clearings.map((c) => [c.id, c.slots]));

  const cardValue = (id) => {
    const card = cards.get(id);
    if (!card) return 0;
    return card.vp + (card.kind === 'ambush' ? 3 : 0) + (card.suit === 'SUIT_BIRD' ? 2 : 0);
  };

  // per clearing: { team: { warriors, strength, prize } } for both teams
  function board(view) {
    const out = new Map();
    for (const clearing of view.clearings) {
      const sides = { A: { warriors: 0, strength: 0, prize: 0 }, B: { warriors: 0, strength: 0, prize: 0 } };
      for (const p of clearing.pieces) {
        const side = sides[teamOf(p.seat)];
        const buildings = p.buildings.reduce((n, b) => n + b.count, 0);
        const tokens = p.tokens.reduce((n, t) => n + t.count, 0);
        side.warriors += p.warriors;
        side.strength += p.warriors + buildings;
        side.prize += buildings + tokens;
      }
      out.set(clearing.id, { sides, ruler: clearing.ruler, openSlots: clearing.open_slots });
    }
    return out;
  }

  function moveValue(cmd, team, rival, places) {
    const from = places.get(cmd.clearing);
    const to = places.get(cmd.to);
    if (!from || !to) return 0;
    let value = 1;
    const ours = to.sides[team].strength + cmd.count;
    if (to.ruler !== `TEAM_${team}` && ours > to.sides[rival].strength) value += 15; // take rule
    if (to.sides[rival].prize > 0 && to.sides[team].warriors + cmd.count > to.sides[rival].warriors) {
      value += 10 * Math.min(to.sides[rival].prize, 3); // set up a winning battle
    }
    if (to.openSlots > 0 && (slots.get(cmd.to) || 0) > 0) value += 3;
    const left = from.sides[team].warriors - cmd.count;
    const ownBuildings = from.sides[team].strength - from.sides[team].warriors;
    if (ownBuildings > 0 && left <= from.sides[rival].warriors) value -= 20; // abandon them
    return value;
  }

  function battleValue(cmd, team, rival, places) {
    if (!cmd.target || teamOf(cmd.target) === team) return 0;
    const here = places.get(cmd.clearing);
    if (!here) return 0;
    const ours = here.sides[team].warriors;
    const theirs = here.sides[rival].warriors;
    if (ours <= theirs) return 0;
    return POINT * here.sides[rival].prize + PIECE * Math.min(ours, theirs);
  }

  function score(cmd, team, rival, places) {
    switch (cmd.kind.replace('COMMAND_KIND_', '')) {
      case 'END_PHASE':
        return -1;
      case 'CRAFT':
        return cmd.cards.length ? POINT * (cards.get(cmd.cards[0])?.vp || 0) + 5 : 0;
      case 'BUILD':
      case 'DECREE_BUILD':
      case 'PLACE_BUILDING':
        return POINT;
      case 'RECRUIT':
      case 'DECREE_RECRUIT':
        return 20;
      case 'AMBUSH':
        return 2 * PIECE;
      case 'BATTLE':
      case 'DECREE_BATTLE':
      case 'COMMAND_WARREN':
        return battleValue(cmd, team, rival, places);
      case 'STRIKE':
        if (!cmd.target || teamOf(cmd.target) === team) return 0;
        return cmd.piece === 'warrior' ? PIECE : POINT;
      case 'MARCH':
      case 'MOVE':
      case 'DECREE_MOVE':
      case 'COBBLER':
        return moveValue(cmd, team, rival, places) - 2 * cmd.cards.length; // a bridge fee
      case 'DISCARD':
        return -cmd.cards.reduce((n, id) => n + cardValue(id), 0);
      default:
        return 0;
    }
  }

  // decision: a DecisionRequest as @grpc/proto-loader decodes it (enums as strings)
  return function choose(decision, refused) {
    const options = decision.legal.filter((c) => !refused.has(c.id));
    if (options.length === 0) return null;
    const seat = decision.view.viewer;
    const team = teamOf(seat);
    const rival = team === 'A' ? 'B' : 'A';
    const places = board(decision.view);
    let best = [];
    let top = -Infinity;
    for (const option of options) {
      const value = score(option.command, team, rival, places);
      if (value > top) {
        top = value;
        best = [option];
      } else if (value === top) {
        best.push(option);
      }
    }
    return best[Math.floor(random() * best.length)];
  };
}

module.exports = { makePlanner };
