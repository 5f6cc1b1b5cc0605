/**
 * Issue 34: every stream that can error has a listener. `a.pipe(b)` listens for the errors of neither stream: an
 * error on either (a client that goes away, a parser that gives up) is uncaught and ends the process, and the other
 * stream is left open. `pipeline` (node:stream/promises) listens on every stream, destroys them all on the first
 * error and reports it once, as a rejection the caller must handle (no-floating-promises).
 *
 * Type-aware: only a `.pipe(...)` whose receiver is a readable stream (a type with `pipe` and `unpipe`, as
 * node's Readable and IncomingMessage have) is reported; zod's `.pipe(schema)` and other `pipe` methods are not.
 */
const noBarePipe = {
  meta: {
    type: 'problem',
    docs: { description: 'forbid Readable#pipe, whose streams have no error listener: use pipeline from node:stream/promises' },
    messages: {
      barePipe:
        '`.pipe()` leaves both streams without an error listener (an error ends the process): use `pipeline(source, destination)` from node:stream/promises and handle its rejection, or read the stream with listeners of your own',
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program || !services.esTreeNodeToTSNodeMap) {
      throw new Error('binzip/no-bare-pipe needs type information (parserOptions.project)');
    }
    const checker = services.program.getTypeChecker();
    const isReadable = (node) => {
      const type = checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));
      // A union (`Readable | undefined`) counts when any member is a stream.
      const parts = type.isUnion() ? type.types : [type];
      return parts.some((part) => part.getProperty('pipe') !== undefined && part.getProperty('unpipe') !== undefined);
    };
    return {
      'CallExpression > MemberExpression.callee[property.name="pipe"]'(member) {
        if (isReadable(member.object)) context.report({ node: member.property, messageId: 'barePipe' });
      },
    };
  },
};

export default { meta: { name: 'binzip-streams' }, rules: { 'no-bare-pipe': noBarePipe } };
