import {
  Badge,
  createTheme,
  type CSSVariablesResolver,
  defaultVariantColorsResolver,
  Modal,
  TableScrollContainer,
  Title,
} from '@mantine/core';

/*
 * Mantine's defaults fall short of WCAG AA contrast (4.5:1) in light mode: white on the default
 * blue (shade 6), the dimmed gray, and coloured text on the tinted "light" variants. These keep
 * the look and pass axe-core's checks on every screen.
 */
export const theme = createTheme({
  // Transitions off for whoever asks the system for less motion (and for the browser tests, whose axe checks would otherwise catch a dialog mid-fade).
  respectReducedMotion: true,
  // Shade 9 in light mode: white text on a filled blue, green or red (buttons, badges, the active navigation link) passes 4.5:1.
  primaryShade: { light: 9, dark: 8 },
  variantColorResolver: (input) => {
    const colors = defaultVariantColorsResolver(input);
    // The tint stays as the signal; the text is the body colour, readable on every tint.
    return input.variant === 'light' ? { ...colors, color: 'var(--mantine-color-text)', hoverColor: 'var(--mantine-color-text)' } : colors;
  },
  components: {
    // The close button is an icon: it needs a name for assistive technology.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    // Status badges as a tint with body text: white on a filled green stays under 4.5:1 at every shade.
    // A badge is as wide as its word: Mantine's would shrink with a narrow column and cut "completed" to "CO…".
    Badge: Badge.extend({
      defaultProps: { variant: 'light' },
      styles: { root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } },
    }),
    // A title naming a record by its id ("Deposit dep_01M8…") breaks inside the id on a phone rather than widen the page.
    Title: Title.extend({ styles: { root: { overflowWrap: 'anywhere' } } }),
    // A table wider than its screen scrolls inside its frame: the frame takes the keyboard's focus, so
    // it scrolls without a mouse even when no link in the table would (a mismatch of plain fields).
    TableScrollContainer: TableScrollContainer.extend({ defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } } }),
  },
});

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  // A form's error in Mantine's red (shade 6) is 3.3:1 on white; shade 9 passes 4.5:1.
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)', '--mantine-color-error': 'var(--mantine-color-red-9)' },
  dark: {},
});
