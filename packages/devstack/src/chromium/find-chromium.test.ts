import { MissingDependencyError } from '../errors';
import { findOrInstallChromium } from './find-chromium';

// The browser tests' Chromium: CHROMIUM_PATH when set, else the system's.

const saved = process.env.CHROMIUM_PATH;
afterEach(() => {
  if (saved === undefined) delete process.env.CHROMIUM_PATH;
  else process.env.CHROMIUM_PATH = saved;
});

test('CHROMIUM_PATH names the browser when it exists', () => {
  process.env.CHROMIUM_PATH = process.execPath;
  expect(findOrInstallChromium(() => undefined)).toBe(process.execPath);
});

test('a CHROMIUM_PATH that does not exist is an error saying so, never an install', () => {
  process.env.CHROMIUM_PATH = '/nowhere/chromium';
  const lines: string[] = [];
  expect(() => findOrInstallChromium((line) => lines.push(line))).toThrow(MissingDependencyError);
  expect(() => findOrInstallChromium(() => undefined)).toThrow(/CHROMIUM_PATH is \/nowhere\/chromium/);
  expect(lines).toEqual([]);
});
