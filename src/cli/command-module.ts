import type { Command } from '@commander-js/extra-typings';
import { AtticError } from '../errors.js';
import type { GlobalFlags } from './context.js';
import type { CliIo } from './io.js';

/**
 * A command's options and arguments, added to the bare command main.ts names and describes.
 * Declared with @commander-js/extra-typings, so the flags its handler gets are typed from the
 * declaration itself: an option renamed or dropped there fails the handler's build.
 */
// biome-ignore lint/suspicious/noExplicitAny: any command's arguments and options, whatever their types
type AnyCommand = Command<any, any, any>;
export type Declaration = (command: Command) => AnyCommand;

/** What a handler is given: its options, the global ones, and the words left as arguments. */
export type FlagsOf<D extends Declaration> =
  ReturnType<D> extends Command<infer _Args, infer Options, infer _Globals> ? Options & GlobalFlags & { args: string[] } : never;

export type Handler<D extends Declaration> = (io: CliIo, flags: FlagsOf<D>) => Promise<number>;

/** How a program runs what was called: the handler's exit status goes to `setExit`. */
export interface CommandCall {
  io: CliIo;
  setExit: (code: number) => void;
}

/** A command as its module exports it: attach it under a parent, declared and ready to run. */
export interface CommandModule {
  attach(command: Command, call: CommandCall): void;
}

/** One command: its declaration and the handler that answers it. */
export function defineCommand<D extends Declaration>(declare: D, handler: Handler<D>): CommandModule {
  return {
    attach(command, call) {
      declare(command).action(async (...args: unknown[]) => {
        const called = args[args.length - 1] as AnyCommand;
        const flags = { ...commandLineOptions(called), args: called.args } as FlagsOf<D>;
        call.setExit(await handler(call.io, flags));
      });
    },
  };
}

/** A command of subcommands (`branch list|create|delete`), each a name, a description and a command. */
export function defineGroup(subcommands: ReadonlyArray<readonly [name: string, description: string, module: CommandModule]>): CommandModule {
  return {
    attach(command, call) {
      for (const [name, description, module] of subcommands) module.attach(command.command(name).description(description), call);
    },
  };
}

/**
 * Options of the command and every command above it; the one nearest the action wins. An empty
 * value (`--invocation "$ID"` with ID unset) is refused: read as not given, it chose something
 * the script did not ask for (the last success instead of an invocation).
 */
function commandLineOptions(command: AnyCommand): Record<string, unknown> {
  const chain: AnyCommand[] = [];
  for (let c: AnyCommand | null = command; c; c = c.parent) chain.unshift(c);
  const merged: Record<string, unknown> = {};
  for (const c of chain) {
    for (const [key, value] of Object.entries(c.opts() as Record<string, unknown>)) {
      if (value === '' || (Array.isArray(value) && value.includes(''))) throw new AtticError('usage', `--${kebab(key)} was given an empty value.`);
      if (value !== undefined) merged[key] = value;
    }
  }
  return merged;
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
