/** Small controls the screens share. */
import { useState } from 'preact/hooks';

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
        <input type="text" value={reason} maxLength={props.maxLength} required={props.required} autoFocus onInput={(e) => setReason(e.currentTarget.value)} />
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

/** A destructive action needs a second click on a button that says what will happen. */
export function ConfirmButton(props: { label: string; confirmLabel: string; busy: boolean; onConfirm(): void }) {
  const [armed, setArmed] = useState(false);
  if (!armed)
    return (
      <button type="button" class="danger" disabled={props.busy} onClick={() => setArmed(true)}>
        {props.label}
      </button>
    );
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger strong"
        disabled={props.busy}
        onClick={() => {
          setArmed(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel}
      </button>
      <button type="button" onClick={() => setArmed(false)}>
        취소
      </button>
    </span>
  );
}
