// A fake OAuth-style auth server for the refresh-token race scenario. It behaves like real ones do:
// refresh tokens rotate (each refresh returns a new one and invalidates the old one), and presenting
// an already-used refresh token is treated as token theft: the whole session is revoked (the user is
// logged out). It counts every refresh request it receives, so the page reports real numbers.
import { randomUUID } from 'node:crypto';

// A refresh answers after this delay, like a real one across the network: long enough that tabs
// which hit 401 together have all sent their refresh before the first answer comes back.
// A round in slow motion (?latencyMs= on login, up to MAX_LATENCY_MS) answers later still, so that
// a person can watch the other tabs queue on the lock while one refreshes.
const REFRESH_LATENCY_MS = 500;
const MAX_LATENCY_MS = 5000;
const MAX_SESSIONS = 1000;

export function createFakeAuthApi() {
  const sessions = new Map(); // sessionId -> session

  const newSession = (latencyMs) => {
    if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value);
    const session = {
      id: randomUUID(), accessToken: `access-${randomUUID()}`, refreshToken: `refresh-${randomUUID()}`,
      refreshesReceived: 0, refreshesAccepted: 0, refreshesRejected: 0, revoked: false, latencyMs,
    };
    sessions.set(session.id, session);
    return session;
  };
  const findByAccessToken = (token) => [...sessions.values()].find((s) => s.accessToken === token);

  // The tokens travel as HttpOnly cookies, as in the article: every tab of the origin shares them,
  // and the browser's cookie jar is updated before a response reaches any page.
  const routes = {
    // Logs in: a fresh session whose access token has already expired, so the next API call gets 401.
    'POST /api/auth/login-expired': (req, url) => {
      const asked = Number(url.searchParams.get('latencyMs'));
      const session = newSession(Number.isFinite(asked) && asked > 0 ? Math.min(asked, MAX_LATENCY_MS) : REFRESH_LATENCY_MS);
      return [200, { sessionId: session.id }, tokenCookies(session.id, `expired-${randomUUID()}`, session.refreshToken)];
    },
    'GET /api/auth/data': (req) => {
      const session = findByAccessToken(readCookies(req).demo_access);
      if (!session || session.revoked) return [401, { error: 'unauthorized' }];
      return [200, { data: 'your account data', sessionId: session.id }];
    },
    'POST /api/auth/refresh': async (req) => {
      const cookies = readCookies(req);
      const session = sessions.get(cookies.demo_session);
      if (!session) return [401, { error: 'unknown session' }];
      session.refreshesReceived += 1;
      let reply;
      if (session.revoked || cookies.demo_refresh !== session.refreshToken) {
        // Reuse of a rotated refresh token: revoke the session (what the article's users experienced).
        session.revoked = true;
        session.refreshesRejected += 1;
        reply = [401, { error: 'refresh token already used: session revoked' }];
      } else {
        session.refreshesAccepted += 1;
        session.accessToken = `access-${randomUUID()}`;
        session.refreshToken = `refresh-${randomUUID()}`;
        reply = [200, { refreshed: true }, tokenCookies(session.id, session.accessToken, session.refreshToken)];
      }
      await new Promise((resolve) => setTimeout(resolve, session.latencyMs));
      return reply;
    },
    'GET /api/auth/stats': (req, url) => {
      const session = sessions.get(url.searchParams.get('sessionId'));
      if (!session) return [404, { error: 'unknown session' }];
      const { refreshesReceived, refreshesAccepted, refreshesRejected, revoked } = session;
      return [200, { refreshesReceived, refreshesAccepted, refreshesRejected, revoked }];
    },
  };

  return async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const route = routes[`${req.method} ${url.pathname}`];
    if (!route) return send(res, 404, { error: 'no such endpoint' });
    req.resume(); // no endpoint reads a body
    const [status, answer, cookies = []] = await route(req, url);
    if (cookies.length) res.setHeader('Set-Cookie', cookies);
    send(res, status, answer);
  };
}

function tokenCookies(sessionId, accessToken, refreshToken) {
  const attributes = 'Path=/api/auth; HttpOnly; SameSite=Strict';
  return [`demo_session=${sessionId}; ${attributes}`, `demo_access=${accessToken}; ${attributes}`, `demo_refresh=${refreshToken}; ${attributes}`];
}

function readCookies(req) {
  return Object.fromEntries((req.headers.cookie ?? '').split(/;\s*/).filter(Boolean).map((pair) => {
    const index = pair.indexOf('=');
    return [pair.slice(0, index), pair.slice(index + 1)];
  }));
}

function send(res, status, answer) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(answer));
}
