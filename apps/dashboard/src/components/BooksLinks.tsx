import { Text } from '@mantine/core';
import { RouterAnchor } from './links';

/** A journal entry by its id, linking to its page. */
export function EntryLink({ id }: { id: string }) {
  return (
    <RouterAnchor to="/journal/$entryId" params={{ entryId: id }} ff="monospace" size="xs">
      {id}
    </RouterAnchor>
  );
}

/** A ledger account by its name, linking to its page; a wallet account to its wallet's account there. */
export function AccountLink({ name, walletId }: { name: string; walletId?: string | null }) {
  return (
    <RouterAnchor to="/accounts/$accountName" params={{ accountName: name }} search={walletId ? { walletId } : {}} ff="monospace" size="xs">
      {name}
    </RouterAnchor>
  );
}

/** A wallet by its id, linking to the wallet's page. */
export function WalletLink({ id }: { id: string }) {
  return (
    <RouterAnchor to="/wallets/$walletId" params={{ walletId: id }} ff="monospace" size="xs">
      {id}
    </RouterAnchor>
  );
}

/** DR or CR, said in words for assistive technology. */
export function DirectionText({ direction }: { direction: 'DR' | 'CR' }) {
  return (
    <Text
      component="abbr"
      title={direction === 'DR' ? 'Debit' : 'Credit'}
      size="xs"
      fw={700}
      ff="monospace"
      style={{ textDecoration: 'none' }}
    >
      {direction}
    </Text>
  );
}
