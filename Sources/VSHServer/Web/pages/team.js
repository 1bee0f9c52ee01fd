// Teams: the panel on a hunt played in teams (make a team, join one with its code, share your
// team's code, leave), and a team's page (`/teams/{id}`): its members, rank and stops.
import { api, session, ApiError } from '../api.js';
import { h, fill, number, formatTime } from '../dom.js';
import { t } from '../i18n.js';
import { main, go, say, followLeague, huntFile } from '../shell.js';

/** The team panel of a hunt whose `play` is `teams` or `either` (null for a solo hunt). */
export function teamPanel(hunt) {
  if (!hunt.play || hunt.play === 'solo') return null;
  const box = h('section', { class: 'team-panel', 'aria-labelledby': 'team-heading' });
  const intro = hunt.play === 'teams'
    ? t('This hunt is played in teams: make a team or join one with its code before you check in. A stop counts once for your team, whoever of you gets there first.')
    : t('Play alone or in a team: a stop counts once for your team, whoever of you gets there first.');
  const size = hunt.max_team_size ? ` ${t('Teams of up to {n} players.', { n: number(hunt.max_team_size) })}` : '';
  async function draw() {
    const me = session();
    if (!me) {
      fill(box, h('h2', { id: 'team-heading' }, t('Your team')), h('p', {}, intro + size),
        h('p', {}, h('a', { class: 'button', href: `/signin?next=${encodeURIComponent(location.pathname)}` }, t('Sign in to make or join a team'))));
      return;
    }
    const teams = await api(`/v1/hunts/${encodeURIComponent(hunt.id)}/teams`, { auth: true });
    if (teams.mine) {
      const mine = teams.mine;
      const link = `${location.origin}/join/${mine.join_code}`;
      fill(box, h('h2', { id: 'team-heading' }, t('Your team')),
        h('p', { class: 'team-name' }, h('a', { href: `/teams/${mine.id}` }, mine.name)),
        h('p', { class: 'muted' }, mine.members.join(', ')),
        h('p', {}, t('Your team’s code:'), ' ', h('strong', { class: 'join-code', 'data-team-code': mine.join_code }, mine.join_code)),
        h('p', { class: 'muted' }, t('Friends join by typing it, or by opening {url}.', { url: link })),
        h('div', { class: 'stop-actions' },
          navigator.share ? h('button', { type: 'button', class: 'secondary', onclick: () => navigator.share({ title: mine.name, url: link }).catch(() => {}) }, t('Share the code')) : null,
          h('a', { class: 'button secondary', href: `/leaderboard?hunt=${encodeURIComponent(hunt.id)}&by=team` }, t('Team board')),
          h('button', { type: 'button', class: 'secondary', onclick: () => leave(mine, me) }, t('Leave the team'))));
      return;
    }
    const name = h('input', { id: 'team-name', name: 'name', required: true, maxlength: 40, autocomplete: 'off' });
    const code = h('input', { id: 'team-code', name: 'code', required: true, maxlength: 40, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false' });
    const problem = h('p', { class: 'error', role: 'alert' });
    fill(box, h('h2', { id: 'team-heading' }, t('Your team')), h('p', {}, intro + size),
      h('form', { class: 'team-form', onsubmit: async (event) => {
        event.preventDefault();
        try {
          const made = await api(`/v1/hunts/${encodeURIComponent(hunt.id)}/teams`, { method: 'POST', json: { name: name.value }, auth: true });
          say(t('Team {team} is yours. Share its code {code} with your friends.', { team: made.team.name, code: made.join_code }), 'good');
          await draw();
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          problem.textContent = error.message;
        }
      } },
      h('label', { for: 'team-name' }, t('Make a team')),
      h('div', { class: 'inline' }, name, h('button', { type: 'submit' }, t('Make it')))),
      h('form', { class: 'team-form', onsubmit: (event) => {
        event.preventDefault();
        const typed = code.value.replace(/[\s-]+/g, '').toUpperCase();
        if (typed) go(`/join/${encodeURIComponent(typed)}`);
      } },
      h('label', { for: 'team-code' }, t('Or join a team with its code')),
      h('div', { class: 'inline' }, code, h('button', { type: 'submit' }, t('Join')))),
      problem,
      teams.teams.length ? h('p', { class: 'muted' }, t('Teams so far: {teams}.', { teams: teams.teams.map((x) => x.name).join(', ') })) : null);
  }
  async function leave(mine, me) {
    if (!confirm(t('Leave {team}? What you found stays the team’s.', { team: mine.name }))) return;
    await api(`/v1/teams/${mine.id}/members/${encodeURIComponent(me.player.username)}`, { method: 'DELETE', auth: true });
    say(t('You left {team}.', { team: mine.name }));
    await draw();
  }
  draw().catch((error) => fill(box, h('p', { class: 'error' }, error.message)));
  return box;
}

/** A team's page. */
export async function teamPage(id) {
  const live = h('span', { class: 'live', role: 'status' });
  const body = h('div', {});
  let team;
  async function load() {
    team = await api(`/v1/teams/${encodeURIComponent(id)}`, { auth: true });
    const zone = (await huntFile(team.hunt.id)).hunt.timezone;
    fill(body,
      h('p', { class: 'crumbs' }, h('a', { href: `/hunts/${encodeURIComponent(team.hunt.id)}` }, team.hunt.name)),
      h('h1', {}, team.name),
      h('p', { class: 'facts' },
        t('Rank {rank}', { rank: number(team.rank) }), ' · ', t('{n} points', { n: number(team.points) }), ' · ',
        t('{n} of {total} stops', { n: number(team.stops_visited), total: number(team.stops_total) }),
        team.completed ? ` · ${t('Hunt completed!')}` : ''),
      team.join_code ? h('p', {}, t('Your team’s code:'), ' ', h('strong', { class: 'join-code' }, team.join_code)) : null,
      h('h2', {}, t('Members')),
      h('ul', { class: 'members' }, team.members.map((m) => h('li', {}, h('a', { href: `/players/${encodeURIComponent(m.name)}` }, m.name)))),
      h('h2', {}, t('Stops')),
      h('ol', { class: 'stops' }, team.stops.map((s) => h('li', { class: s.visited_by ? 'visited' : '' },
        h('span', { class: 'stop-name' }, s.name),
        h('span', { class: 'stop-facts' }, t('{n} points', { n: number(s.points) }),
          s.visited_by ? h('span', { class: 'tick' }, ` ${t('✓ {player}, {when}', { player: s.visited_by, when: formatTime(s.at, zone) })}`) : null)))),
      h('p', {}, h('a', { href: `/leaderboard?hunt=${encodeURIComponent(team.hunt.id)}&by=team` }, t('Team board'))));
  }
  fill(main, live, body);
  await load();
  followLeague(load, live, t('● Live'));
}
