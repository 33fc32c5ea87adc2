import { useEffect, useRef } from 'react';

/** Calls `onChange(conversationId)` for each change on the inbox's event stream (EventSource resumes by itself). */
export function useInboxChanges(onChange: (conversationId: number) => void): void {
  const handler = useRef(onChange);
  handler.current = onChange;
  useEffect(() => {
    const source = new EventSource('/console/v1/inbox/stream');
    const listener = (event: MessageEvent<string>) => {
      try {
        const data = JSON.parse(event.data) as { conversation_id?: number };
        if (typeof data.conversation_id === 'number') handler.current(data.conversation_id);
      } catch {
        // A line the console does not know: ignored.
      }
    };
    source.addEventListener('conversation', listener);
    return () => source.close();
  }, []);
}
