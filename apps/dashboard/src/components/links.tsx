import { Anchor, type AnchorProps, NavLink, type NavLinkProps } from '@mantine/core';
import { createLink } from '@tanstack/react-router';
import { type AnchorHTMLAttributes, forwardRef } from 'react';

/**
 * Mantine's link-looking components as TanStack Router links: typed `to` and `params`,
 * preloading on intent, and a real <a href> for keyboard and assistive technology.
 */
const AnchorElement = forwardRef<HTMLAnchorElement, AnchorProps & AnchorHTMLAttributes<HTMLAnchorElement>>((props, ref) => (
  <Anchor component="a" ref={ref} {...props} />
));
export const RouterAnchor = createLink(AnchorElement);

const NavLinkElement = forwardRef<HTMLAnchorElement, NavLinkProps & AnchorHTMLAttributes<HTMLAnchorElement>>((props, ref) => (
  <NavLink component="a" ref={ref} {...props} />
));
export const RouterNavLink = createLink(NavLinkElement);
