/** Small controls the screens share. */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/** Asks for a reason before an action that needs one (rejecting a listing, suspending a member). */
export function ReasonForm(props: {
  label: string;
  submitLabel: string;
  maxLength: number;
  required: boolean;
  busy: boolean;
  onSubmit: (reason: string) => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const trimmed = reason.trim();
  const inputRef = useRef<HTMLInputElement>(null);
  // The form replaces the button that opened it: the focus goes to its field (`autofocus` works once per page).
  useEffect(() => inputRef.current?.focus(), []);
  return (
    <form
      class="reason-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (props.required && !trimmed) return;
        props.onSubmit(trimmed);
      }}
    >
      <label>
        {props.label}
        <input
          type="text"
          value={reason}
          maxLength={props.maxLength}
          required={props.required}
          ref={inputRef}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      </label>
      <div class="actions">
        <button type="submit" class="danger" disabled={props.busy || (props.required && !trimmed)}>
          {props.submitLabel}
        </button>
        <button type="button" onClick={props.onCancel}>
          취소
        </button>
      </div>
    </form>
  );
}

/**
 * Gives the focus back to what had it when a panel or dialog opened, once it closes (a keyboard user would
 * otherwise be sent back to the top of the page). Call it before the component moves the focus itself.
 */
export function useFocusReturn(): void {
  const opener = useOpener();
  useEffect(
    () => () => {
      if (opener?.isConnected) opener.focus();
    },
    [],
  );
}

/**
 * What has the focus at the first render, read then (an effect runs after the browser painted, when the focus may
 * already have moved, e.g. to the page's body).
 */
function useOpener(): HTMLElement | null {
  const [opener] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));
  return opener;
}

/**
 * A modal confirmation (issue 40: a destructive action says what it will do, with the count): the browser's
 * modal dialog keeps the focus inside it and closes on Escape; the focus starts on 취소 (the safe choice) and goes
 * back where it was when the dialog closes (as `useFocusReturn`, but after the dialog is closed).
 */
export function ConfirmDialog(props: { title: string; children: ComponentChildren; confirmLabel: string; onConfirm: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const opener = useOpener();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    cancelRef.current?.focus();
    return () => {
      // Closed first: while a modal dialog is open, nothing outside it can take the focus.
      dialog?.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape: the console decides what closing means (the dialog is only shown while the screen asks).
        event.preventDefault();
        props.onCancel();
      }}
    >
      <h3 id={titleId}>{props.title}</h3>
      <p>{props.children}</p>
      <div class="actions">
        <button type="button" class="danger strong" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
        <button type="button" ref={cancelRef} onClick={props.onCancel}>
          취소
        </button>
      </div>
    </dialog>
  );
}

/** A destructive action asks first, in a dialog that says what will happen. */
export function ConfirmButton(props: { label: string; confirmLabel: string; question: string; busy: boolean; onConfirm(): void }) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <button type="button" class="danger" disabled={props.busy} onClick={() => setAsking(true)}>
        {props.label}
      </button>
      {asking && (
        <ConfirmDialog
          title={props.label}
          confirmLabel={props.confirmLabel}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            props.onConfirm();
          }}
        >
          {props.question}
        </ConfirmDialog>
      )}
    </>
  );
}
