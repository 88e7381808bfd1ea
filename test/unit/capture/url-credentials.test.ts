import { describe, expect, it } from 'vitest';
import { stripUrlCredentials } from '../../../src/capture/url-credentials.js';

describe('stripUrlCredentials', () => {
  it('drops all user-info and the query over http(s)', () => {
    expect(stripUrlCredentials('https://user:token@github.com/acme/shop.git')).toBe('https://github.com/acme/shop.git');
    expect(stripUrlCredentials('https://ghp_abc123@github.com/acme/shop.git')).toBe('https://github.com/acme/shop.git');
    expect(stripUrlCredentials('http://gitlab.example.com:8080/a/b.git?private_token=x#frag')).toBe('http://gitlab.example.com:8080/a/b.git');
  });

  it('keeps the ssh user, which is an account name, and drops an ssh password', () => {
    expect(stripUrlCredentials('ssh://git@github.com:22/acme/shop.git')).toBe('ssh://git@github.com:22/acme/shop.git');
    expect(stripUrlCredentials('ssh://deploy:hunter2@host/repo.git')).toBe('ssh://deploy@host/repo.git');
    expect(stripUrlCredentials('git@github.com:acme/shop.git')).toBe('git@github.com:acme/shop.git');
  });

  it('leaves credential-free URLs and paths byte for byte', () => {
    for (const url of ['https://github.com/acme/shop', '/srv/git/shop.git', '../shop', 'file:///srv/git/shop.git']) {
      expect(stripUrlCredentials(url)).toBe(url);
    }
  });

  it('strips user-info even from a URL it cannot parse', () => {
    expect(stripUrlCredentials('https://user:p@ss@[bad/repo')).toBe('https://[bad/repo');
  });
});
