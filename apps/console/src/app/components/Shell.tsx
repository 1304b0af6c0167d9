import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useSession } from '../client-context';

const SECTIONS = [
  { href: '/catalog', label: 'Agents and apps' },
  { href: '/runs', label: 'Runs' },
  { href: '/reviews', label: 'Reviews' },
  { href: '/assets', label: 'Assets' },
];

export function Shell({ children }: { children: ReactNode }) {
  const { signOut } = useSession();
  const [location] = useLocation();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="container">
        <nav aria-label="Sections">
          <ul>
            <li>
              <strong>Weft</strong>
            </li>
          </ul>
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.href}>
                <Link href={s.href} aria-current={location.startsWith(s.href) ? 'page' : undefined}>
                  {s.label}
                </Link>
              </li>
            ))}
            <li>
              <button type="button" className="secondary outline" onClick={signOut}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main" className="container" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
