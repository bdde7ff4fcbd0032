import { splitTrace } from '../../../bench/trace-split.js';
import type { TraceEvent } from '../../../bench/servers/serve.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function traceSplitSpec(): void {
  const request = (at: number): TraceEvent => ({ at, what: 'request' });
  const answered = (at: number): TraceEvent => ({ at, what: 'answered' });
  const command = (at: number, id: number): TraceEvent => ({ at, what: 'command', command: 'find', id });
  const reply = (at: number, id: number): TraceEvent => ({ at, what: 'reply', command: 'find', id });

  describe('splitTrace', () => {
    it('counts overlapping commands once: the union of their intervals is the engine time', () => {
      // Commands 1 (10–40) and 2 (20–60) overlap, 3 (70–80) stands apart: 50 + 10 in flight of 100.
      const events = [request(0), command(10, 1), command(20, 2), reply(40, 1), reply(60, 2), command(70, 3), reply(80, 3), answered(100)];
      expect(splitTrace(events)).toEqual({ total: 100, engine: 60, outside: 40, commands: 3 });
    });

    it('counts a command inside another once', () => {
      const events = [request(0), command(10, 1), command(15, 2), reply(20, 2), reply(50, 1), answered(60)];
      expect(splitTrace(events)).toEqual({ total: 60, engine: 40, outside: 20, commands: 2 });
    });

    it('holds a request without commands wholly outside the engine', () => {
      expect(splitTrace([request(5), answered(9)])).toEqual({ total: 4, engine: 0, outside: 4, commands: 0 });
    });

    it('counts a command without a reply until the answer, and clips a command to the request', () => {
      const events = [command(-5, 1), request(0), reply(3, 1), command(90, 2), answered(100)];
      expect(splitTrace(events)).toEqual({ total: 100, engine: 13, outside: 87, commands: 2 });
    });

    it('refuses a trace of no request or of two', () => {
      expect(() => splitTrace([command(1, 1)])).toThrow(/one arrival and one answer/);
      expect(() => splitTrace([request(0), answered(1), request(2), answered(3)])).toThrow(/one arrival and one answer/);
    });
  });
}
