import { describe, expect, it } from 'vitest';
import { placeOfResource, type ManifestResource } from '../../src/manifest/model.js';
import type { PositionMap, ValuePosition } from '../../src/manifest/source.js';

/** Positions that count how often they are asked (asking computes a whole file's positions). */
function countingPositions(entries: Record<string, ValuePosition>): PositionMap & { asked: number } {
  return {
    asked: 0,
    get(pointer: string) {
      this.asked += 1;
      return entries[pointer];
    },
  };
}

function resource(positions: PositionMap): ManifestResource {
  return {
    kind: 'Trunk',
    name: 'pbx-out',
    address: 'Trunk/pbx-out',
    protect: false,
    spec: {},
    source: { file: 'trunks.yaml', absolute: '/m/trunks.yaml', document: 2, positions },
  };
}

describe('placeOfResource', () => {
  it('looks the position up only when it is read, once, and reads like a plain place', () => {
    const positions = countingPositions({
      '/metadata/name': { value: { line: 14, column: 9 }, key: { line: 14, column: 3 } },
    });
    const place = placeOfResource(resource(positions));
    expect(positions.asked).toBe(0);
    expect(place.file).toBe('trunks.yaml');
    expect(positions.asked).toBe(0);
    expect(place.line).toBe(14);
    expect(place.column).toBe(9);
    expect(positions.asked).toBe(1);
    expect(JSON.parse(JSON.stringify(place))).toEqual({ file: 'trunks.yaml', line: 14, column: 9 });
    expect({ ...place }).toEqual({ file: 'trunks.yaml', line: 14, column: 9 });
    expect(Object.keys(place)).toEqual(['file', 'line', 'column']);
  });
});
