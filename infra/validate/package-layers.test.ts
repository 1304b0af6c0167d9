import { edgesAgainstLayers, layersOf, toleratedTestEdges, workspaces } from './package-layers';
import { readText } from './files';

const architecture = readText('ARCHITECTURE.md');
const all = workspaces();
const layers = layersOf(architecture);

test('the diagram places every workspace, once', () => {
  expect([...layers.keys()].sort()).toEqual(all.map((w) => w.name).sort());
});

test('dependencies point to lower layers only', () => {
  const wrong = edgesAgainstLayers(all, layers).filter((e) => !e.dev);
  expect(wrong.map((e) => `${e.from} → ${e.to}`)).toEqual([]);
});

test('test-only dependencies too, but on the test services and the edges listed as moving', () => {
  const wrong = edgesAgainstLayers(all, layers).filter((e) => e.dev && e.to !== 'testing');
  expect(wrong.map((e) => `${e.from} → ${e.to}`).sort()).toEqual(toleratedTestEdges(architecture).sort());
});

test('a dependency on a higher layer is caught', () => {
  const probe = [
    { name: 'db', dependencies: ['engine'], devDependencies: [] },
    { name: 'engine', dependencies: ['db'], devDependencies: [] },
  ];
  const probeLayers = new Map([
    ['db', 1],
    ['engine', 4],
  ]);
  expect(edgesAgainstLayers(probe, probeLayers)).toEqual([{ from: 'db', to: 'engine', dev: false }]);
});
