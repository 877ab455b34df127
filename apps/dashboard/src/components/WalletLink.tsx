import { RouterAnchor } from './links';

/** A wallet named in a money movement, linked to its page. */
export function WalletLink({ walletId }: { walletId: string }) {
  return (
    <RouterAnchor to="/wallets/$walletId" params={{ walletId }} ff="monospace" size="sm">
      {walletId}
    </RouterAnchor>
  );
}
