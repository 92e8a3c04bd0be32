#!/usr/bin/env node
// A bot for Frontier in Node.js: proof that a bot needs nothing but proto/ and gRPC.
//
//   FRONTIER_BOT_TOKEN=... node bot.js --url HOST:PORT --match ID --seat A1 [--seed N]
//               [--policy random|planner] [--token-file PATH]
//   FRONTIER_BOT_KEY=... node bot.js --arena HOST:PORT [--capacity N] [--seats N]
//               [--policy random|planner] [--seed N] [--key-file PATH]
//
// It loads proto/frontier/v1/bot.proto and match.proto at run time with @grpc/proto-loader
// (no generated code), opens one BotService.Play stream for its seat, says Hello, and
// answers every DecisionRequest with a legal command id: chosen by a seeded generator
// (--policy random, the default), or by planner.js (--policy planner), which first fetches
// MatchService.GetGameData and then plans from the typed view and that static data only.  A rejected answer
// is answered again with another legal id (the decision stays open until its deadline); a
// broken stream is reopened, and the server re-sends the open decision.  At MatchOver it
// prints one JSON line ({"seat", "winner", "score_a", "score_b", "decisions", ...}) and exits
// 0; a refused Hello (bad token, unknown match) exits 1, after one JSON line on stderr with
// the status decoded from its grpc-status-details-bin trailer ({"error": {"code", "reason",
// "metadata", "message"}}, see errorDetails).  The seat token is a secret and a
// command line is readable by every user of the machine, so it comes from FRONTIER_BOT_TOKEN
// (or its older name FRONTIER_SEAT_TOKEN) or a file (--token-file); --token still works but
// warns on stderr.
//
// With --arena it enters the arena instead (arena.js): ArenaService.Enter with its bot key,
// and every seat the arena assigns is played as above, several at once (--capacity).
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');
const { makePlanner } = require('./planner');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const RECONNECTABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.INTERNAL]);
const MAX_RECONNECTS = 20;

function parseArgs(argv) {
  const args = { seed: '0', policy: 'random' };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i];
    if (!key.startsWith('--') || i + 1 >= argv.length) {
      throw new Error(
        `bad argument ${key}; usage: --url HOST:PORT --match ID --seat A1 [--token-file F] [--seed N] [--policy random|planner]`,
      );
    }
    args[key.slice(2)] = argv[i + 1];
    i += 1;
  }
  args.token = seatToken(args);
  if (!args.token) throw new Error('a seat token is required: $FRONTIER_BOT_TOKEN or --token-file');
  for (const required of ['url', 'match', 'seat']) {
    if (!args[required]) throw new Error(`--${required} is required`);
  }
  if (!['random', 'planner'].includes(args.policy)) {
    throw new Error(`--policy must be random or planner, not ${args.policy}`);
  }
  return args;
}

// The seat token: --token-file, else --token (warned about), else the environment.
function seatToken(args) {
  if (args['token-file'] !== undefined) {
    if (args.token !== undefined) throw new Error('--token and --token-file exclude each other');
    const token = fs.readFileSync(args['token-file'], 'utf8').trim();
    if (!token) throw new Error(`--token-file ${args['token-file']} holds no token`);
    return token;
  }
  if (args.token !== undefined) {
    process.stderr.write(
      'warning: --token puts the seat token in the process list, where every user of this ' +
        'machine can read it; use $FRONTIER_BOT_TOKEN or --token-file instead\n',
    );
    return args.token;
  }
  return process.env.FRONTIER_BOT_TOKEN || process.env.FRONTIER_SEAT_TOKEN || '';
}

// mulberry32: a tiny seeded generator, so a bot's choices are reproducible from its seed.
function generator(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function loadPackage() {
  const files = ['frontier/v1/bot.proto', 'frontier/v1/match.proto', 'frontier/v1/arena.proto'];
  const definition = protoLoader.loadSync(files, {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).frontier.v1;
}

// google.rpc.Status and google.rpc.ErrorInfo, from the copies of googleapis' protos in
// proto/google/rpc (google/protobuf/any.proto comes with protobufjs).
function loadErrorTypes() {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync(['google/rpc/status.proto', 'google/rpc/error_details.proto'], { keepCase: true });
  return { Status: root.lookupType('google.rpc.Status'), ErrorInfo: root.lookupType('google.rpc.ErrorInfo') };
}

// What an error status says for programs: the google.rpc.Status in the standard trailer
// grpc-status-details-bin, and its ErrorInfo's reason (an ErrorReason name of errors.proto,
// e.g. "MATCH_NOT_FOUND") and metadata ({"field": ..., "current_version": ...}).  A status
// without one (gRPC's own: a lost connection) has reason "" and no metadata.
function errorDetails(err, types = loadErrorTypes()) {
  const out = { code: grpc.status[err.code] || String(err.code), reason: '', domain: '', metadata: {}, message: err.details || err.message };
  const raw = err.metadata ? err.metadata.get('grpc-status-details-bin') : [];
  if (raw.length === 0) return out;
  const status = types.Status.decode(raw[0]);
  for (const detail of status.details) {
    if (detail.type_url.endsWith('/google.rpc.ErrorInfo')) {
      const info = types.ErrorInfo.decode(detail.value);
      return { ...out, reason: info.reason, domain: info.domain, metadata: { ...info.metadata } };
    }
  }
  return out;
}

// A status that ends the bot, as an Error carrying its decoded details.
class StatusError extends Error {
  constructor(details) {
    super(`${details.code} ${details.reason}: ${details.message}`);
    this.details = details;
  }
}

// The static game data (map, deck...) the planner needs: one unary call.
function fetchGameData(v1, url) {
  const client = new v1.MatchService(url, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.GetGameData({}, { deadline: Date.now() + 10000 }, (err, reply) => {
      client.close();
      if (err) reject(new StatusError(errorDetails(err)));
      else resolve(reply.data);
    });
  });
}

// A policy answers a decision (and the ids the server refused) with one legal command.
function randomPolicy(random) {
  return (decision, refused) => {
    const options = decision.legal.filter((c) => !refused.has(c.id));
    if (options.length === 0) return null;
    return options[Math.floor(random() * options.length)];
  };
}

// What the legal commands said of themselves (LegalCommand.verb, cost, vp), counted so that a
// run shows the facts arrive: `vp` is a proto3 optional, present only when the server is sure
// of it, which @grpc/proto-loader (oneofs: true) marks with the synthetic oneof `_vp`.
function countFacts(legal, facts) {
  for (const command of legal) {
    const verb = command.verb.replace('COMMAND_VERB_', '');
    facts.verbs[verb] = (facts.verbs[verb] || 0) + 1;
    if (command._vp === 'vp' && command.vp > 0) facts.scoring += 1;
    if (command.cost && command.cost.card_ids.length > 0) facts.costing_cards += 1;
  }
}

// One stream; resolves with 'over' (MatchOver received) or 'lost' (reconnect), rejects on a
// status that a reconnect cannot fix.
function playOnce(client, args, policy, stats) {
  return new Promise((resolve, reject) => {
    const call = client.Play();
    let open = null; // the DecisionRequest being answered
    let refused = new Set();
    let settled = false;
    const finish = (fn, value) => {
      if (!settled) {
        settled = true;
        fn(value);
      }
    };

    const answer = () => {
      const pick = policy(open, refused);
      if (pick === null) return; // everything refused: the server's deadline decides
      call.write({ answer: { decision_id: open.decision_id, legal_id: pick.id } });
      stats.answers += 1;
    };

    call.on('data', (response) => {
      switch (response.message) {
        case 'welcome':
          stats.seat = response.welcome.seat.replace('SEAT_', '');
          if (stats.seat !== args.seat) {
            call.cancel();
            finish(reject, new Error(`the token plays seat ${stats.seat}, not ${args.seat}`));
          }
          break;
        case 'decision':
          open = response.decision;
          refused = new Set();
          stats.decisions += 1;
          countFacts(open.legal, stats.facts);
          answer();
          break;
        case 'rejected': {
          stats.rejected += 1;
          const code = response.rejected.reason_code.replace('ERROR_REASON_', '');
          stats.rejections[code] = (stats.rejections[code] || 0) + 1;
          if (open && response.rejected.decision_id === open.decision_id) {
            refused.add(response.rejected.command_id);
            answer();
          }
          break;
        }
        case 'strike':
          stats.strikes = response.strike.strikes;
          stats.taken_over = stats.taken_over || response.strike.taken_over;
          break;
        case 'match_over':
          stats.winner = response.match_over.winner;
          stats.score_a = response.match_over.score_a;
          stats.score_b = response.match_over.score_b;
          call.end();
          finish(resolve, 'over');
          break;
        default: // heartbeat
          break;
      }
    });
    call.on('error', (err) => {
      if (RECONNECTABLE.has(err.code)) finish(resolve, 'lost');
      else finish(reject, new StatusError(errorDetails(err)));
    });
    call.on('end', () => finish(resolve, 'lost'));
    call.write({ hello: { match_id: args.match, seat_token: args.token } });
  });
}

// The policy a seat is played with: a seeded random choice, or the planner over the game
// data of the orchestrator at `url`.
async function makePolicy(v1, url, name, random) {
  return name === 'planner' ? makePlanner(await fetchGameData(v1, url), random) : randomPolicy(random);
}

function newStats(seat, policy) {
  return {
    seat,
    policy,
    winner: '',
    score_a: 0,
    score_b: 0,
    decisions: 0,
    answers: 0,
    rejected: 0,
    rejections: {}, // AnswerRejected.reason_code (without its prefix) -> how many
    strikes: 0,
    taken_over: false,
    reconnects: 0,
    // legal commands seen, by verb; how many surely scored, how many cost cards
    facts: { verbs: {}, scoring: 0, costing_cards: 0 },
  };
}

// Play one seat to the end of its match: {url, match, seat, token, policy: name} and the
// policy function; resolves with the seat's stats, rejects on a status a reconnect cannot fix.
async function playSeat(v1, seatArgs, policy) {
  const client = new v1.BotService(seatArgs.url, grpc.credentials.createInsecure());
  const stats = newStats(seatArgs.seat, seatArgs.policy);
  try {
    for (;;) {
      const outcome = await playOnce(client, seatArgs, policy, stats);
      if (outcome === 'over') break;
      stats.reconnects += 1;
      if (stats.reconnects > MAX_RECONNECTS) throw new Error('gave up: the stream kept breaking');
      await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** (stats.reconnects - 1), 5000)));
    }
  } finally {
    client.close();
  }
  return stats;
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.includes('--arena')) {
    await require('./arena').main(argv);
    return;
  }
  const args = parseArgs(argv);
  const v1 = loadPackage();
  const random = generator(Number.parseInt(args.seed, 10) || 0);
  const policy = await makePolicy(v1, args.url, args.policy, random);
  const stats = await playSeat(v1, args, policy);
  process.stdout.write(`${JSON.stringify(stats)}\n`);
}

// Exported before main runs: arena.js, loaded by main, uses them.
module.exports = {
  errorDetails,
  loadErrorTypes,
  loadPackage,
  generator,
  fetchGameData,
  randomPolicy,
  makePolicy,
  playSeat,
  StatusError,
  RECONNECTABLE,
  MAX_RECONNECTS,
};

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      if (err.details) process.stderr.write(`${JSON.stringify({ error: err.details })}\n`);
      process.stderr.write(`frontier-node-bot: error: ${err.message}\n`);
      process.exit(1);
    },
  );
}
