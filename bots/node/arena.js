// The Node bot in the arena (docs/arena.md): `node bot.js --arena HOST:PORT ...`.
//
//   FRONTIER_BOT_KEY=fb_... node bot.js --arena HOST:PORT [--capacity N] [--seats N]
//               [--policy random|planner] [--seed N] [--key-file PATH] [--orchestrator HOST:PORT]
//
// It opens one ArenaService.Enter stream and says EnterHello{bot_key, capacity, whole_teams}:
// capacity is the matches it plays at once, and in each it plays its team's three seats, one
// SeatAssignment each.  Each SeatAssignment the arena sends is played at once, next to the others, through
// BotService.Play on the orchestrator it names (--orchestrator overrides that address), with
// the same policies as a single seat (bot.js); when the seat's match is over the bot prints
// one JSON line ({"match_id", "seat", "winner", "decisions", "taken_over", ...}) and sends
// SeatDone, so that the arena may seat it again at once.
//
// Heartbeats: the bot sends one after HEARTBEAT_MS without writing, and the arena answers
// it; the bot does not answer the arena's own heartbeats (the arena answers every one it
// receives, so answering would bounce them back and forth for ever).  What it receives is
// its sign of life: after SILENCE_MS with nothing from the arena the stream is taken for dead.
//
// A broken or dead stream (the arena restarting, say) is entered again with a backoff, while
// the seats under way play on; MAX_FAILURES entries in a row that the arena never welcomed
// end the bot.  A refused entry (an unknown bot key, a capacity out of range) ends it at once
// with exit status 1 and the decoded status on stderr, as a refused Hello does.  --seats N
// makes it leave after N seats played: it waits for its seats in play, plays no seat assigned
// after the N-th ended (the server's takeover plays such a seat), closes its stream and exits 0.
//
// The bot key is a secret: it comes from FRONTIER_BOT_KEY or a file (--key-file); --bot-key
// works but warns, as --token does.  It is never printed.
'use strict';

const fs = require('fs');
const grpc = require('@grpc/grpc-js');
const bot = require('./bot');
const { makePlanner } = require('./planner');

const HEARTBEAT_MS = 10000;
const SILENCE_MS = 45000; // three of the arena's 15 s heartbeats missed
const MAX_FAILURES = 20;
const LEAVE_MS = 5000;
const FIRST_WAIT_MS = 200; // the first wait before entering again; it doubles up to 5 s
const USAGE =
  'usage: --arena HOST:PORT [--capacity N] [--seats N] [--policy random|planner] [--seed N] ' +
  '[--key-file F] [--orchestrator HOST:PORT]';
const FLAGS = new Set(['arena', 'capacity', 'seats', 'policy', 'seed', 'key-file', 'bot-key', 'orchestrator']);

function parseArenaArgs(argv) {
  const args = { capacity: '1', seats: '0', policy: 'random', seed: '0', orchestrator: '' };
  for (let i = 0; i < argv.length; i += 1) {
    const name = argv[i].startsWith('--') ? argv[i].slice(2) : '';
    if (!FLAGS.has(name) || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}; ${USAGE}`);
    args[name] = argv[i + 1];
    i += 1;
  }
  if (!args.arena) throw new Error(`--arena is required; ${USAGE}`);
  if (!['random', 'planner'].includes(args.policy)) {
    throw new Error(`--policy must be random or planner, not ${args.policy}`);
  }
  const capacity = Number(args.capacity);
  const seats = Number(args.seats);
  if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`--capacity must be a positive integer`);
  if (!Number.isInteger(seats) || seats < 0) throw new Error(`--seats must be 0 (never stop) or more`);
  const key = botKey(args);
  if (!key) throw new Error('a bot key is required: $FRONTIER_BOT_KEY or --key-file');
  return {
    arena: args.arena,
    key,
    capacity,
    seats,
    policy: args.policy,
    seed: Number.parseInt(args.seed, 10) || 0,
    orchestrator: args.orchestrator,
  };
}

// The bot key: --key-file, else --bot-key (warned about), else the environment.
function botKey(args) {
  if (args['key-file'] !== undefined) {
    if (args['bot-key'] !== undefined) throw new Error('--bot-key and --key-file exclude each other');
    const key = fs.readFileSync(args['key-file'], 'utf8').trim();
    if (!key) throw new Error(`--key-file ${args['key-file']} holds no key`);
    return key;
  }
  if (args['bot-key'] !== undefined) {
    process.stderr.write(
      'warning: --bot-key puts the bot key in the process list, where every user of this ' +
        'machine can read it; use $FRONTIER_BOT_KEY or --key-file instead\n',
    );
    return args['bot-key'];
  }
  return (process.env.FRONTIER_BOT_KEY || '').trim();
}

const say = (line) => process.stderr.write(`frontier-node-bot: ${line}\n`);

// One bot in the arena: its Enter stream, entered again when it breaks, and its seats.
class ArenaBot {
  constructor(v1, options) {
    this.v1 = v1;
    this.options = options;
    this.client = new v1.ArenaService(options.arena, grpc.credentials.createInsecure());
    this.seats = new Map(); // match id -> the promise of its seat
    this.assigned = 0; // seats assigned so far (each gets its own seed)
    this.played = 0; // seats whose match is over
    this.leaving = false; // --seats reached: no new seat is played
    this.call = null; // the Enter stream now open
    this.gameData = new Map(); // orchestrator address -> its GetGameData (for the planner)
    this.write = () => {};
  }

  // Enter until the bot leaves; resolves with the number of seats played.
  async run() {
    let failures = 0;
    while (!this.leaving) {
      const { welcomed, reason } = await this.enterOnce();
      if (this.leaving) break;
      failures = welcomed ? 0 : failures + 1;
      if (failures > MAX_FAILURES) throw new Error(`gave up entering after ${MAX_FAILURES} tries: ${reason}`);
      say(`out of the arena (${reason}); entering again`);
      await new Promise((r) => setTimeout(r, Math.min(FIRST_WAIT_MS * 2 ** failures, 5000)));
    }
    await Promise.allSettled([...this.seats.values()]);
    this.client.close();
    return this.played;
  }

  // One Enter stream, until it ends: {welcomed, reason}; rejects on a refusal.
  enterOnce() {
    return new Promise((resolve, reject) => {
      const call = this.client.Enter();
      this.call = call;
      let welcomed = false;
      let settled = false;
      let heard = Date.now();
      let wrote = Date.now();
      const write = (message) => {
        wrote = Date.now();
        call.write(message);
      };
      const timer = setInterval(() => {
        if (Date.now() - heard > SILENCE_MS) call.cancel(); // ends below as CANCELLED
        else if (Date.now() - wrote >= HEARTBEAT_MS) write({ heartbeat: {} });
      }, Math.min(HEARTBEAT_MS, 1000));
      const finish = (fn, value) => {
        if (settled) return;
        settled = true;
        clearInterval(timer);
        if (this.call === call) this.call = null;
        fn(value);
      };
      call.on('data', (response) => {
        heard = Date.now();
        if (response.message === 'welcome') {
          welcomed = true;
          say(`entered the arena as ${response.welcome.name} (${response.welcome.bot_id})`);
        } else if (response.message === 'assignment') {
          this.startSeat(response.assignment);
        }
      });
      call.on('error', (err) => {
        if (bot.RECONNECTABLE.has(err.code) || err.code === grpc.status.CANCELLED) {
          finish(resolve, { welcomed, reason: grpc.status[err.code] });
        } else {
          finish(reject, new bot.StatusError(bot.errorDetails(err)));
        }
      });
      call.on('end', () => finish(resolve, { welcomed, reason: 'the arena ended the stream' }));
      write({ hello: { bot_key: this.options.key, capacity: this.options.capacity, whole_teams: true } });
      this.write = write;
    });
  }

  // Send a message on the stream now open (none while out of the arena: the arena frees a
  // seat by itself when it sees its match end).
  send(message) {
    if (this.call !== null) this.write(message);
  }

  startSeat(assignment) {
    const seat = assignment.seat.replace('SEAT_', '');
    const key = `${assignment.match_id}/${seat}`;
    if (this.leaving || this.seats.has(key)) return;
    const index = this.assigned;
    this.assigned += 1;
    const playing = this.playSeat(assignment, seat, index).then(
      (stats) => process.stdout.write(`${JSON.stringify({ match_id: assignment.match_id, ...stats })}\n`),
      (err) => {
        const error = err.details || { message: err.message };
        process.stderr.write(`${JSON.stringify({ match_id: assignment.match_id, seat, error })}\n`);
      },
    );
    const done = playing.then(() => {
      this.seats.delete(key);
      this.played += 1;
      if (this.options.seats && this.played >= this.options.seats) this.leaving = true;
      // leaving: the arena assigns this bot no more seats (none would be played)
      this.send({ seat_done: { match_id: assignment.match_id, leaving: this.leaving } });
      if (this.leaving && this.seats.size === 0) this.close();
    });
    this.seats.set(key, done);
  }

  async playSeat(assignment, seat, index) {
    const url = this.options.orchestrator || assignment.orchestrator_address;
    const random = bot.generator(this.options.seed + index);
    let policy = bot.randomPolicy(random);
    if (this.options.policy === 'planner') {
      if (!this.gameData.has(url)) {
        const fetching = bot.fetchGameData(this.v1, url);
        fetching.catch(() => this.gameData.delete(url)); // the next seat asks again
        this.gameData.set(url, fetching);
      }
      policy = makePlanner(await this.gameData.get(url), random);
    }
    const seatArgs = { url, match: assignment.match_id, seat, token: assignment.seat_token, policy: this.options.policy };
    return bot.playSeat(this.v1, seatArgs, policy);
  }

  // Leave: half-close the stream, so that the arena reads the SeatDone messages before it
  // sees the end and ends the stream itself (cancelled after LEAVE_MS if it does not).
  close() {
    this.leaving = true;
    const call = this.call;
    if (call !== null) {
      call.end();
      setTimeout(() => call.cancel(), LEAVE_MS).unref();
    }
  }
}

async function main(argv) {
  const options = parseArenaArgs(argv);
  const arenaBot = new ArenaBot(bot.loadPackage(), options);
  const played = await arenaBot.run();
  say(`played ${played} seats`);
}

module.exports = { main, parseArenaArgs, ArenaBot, HEARTBEAT_MS, SILENCE_MS };
