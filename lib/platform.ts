// ─── Which prebuilt addon this machine needs ─────────────────────────────────
//
// The addon ships in one npm package per platform (npm/<platform>/, the napi-rs layout): `napi pre-publish` lists
// them in the published package's optionalDependencies, and npm installs only the one matching the machine. The
// loader napi-rs generates (binding.js) says "npm has a bug related to optional dependencies" whenever none loads,
// which is wrong when the platform has no prebuilt addon at all. This check runs first and says what is true: which
// platforms exist (package.json `napi.targets`, the one list the build and the packaging read too), or which package
// is missing.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGE_ROOT = join(__dirname, '..');

interface PackageManifest {
  name: string;
  version: string;
  napi: { binaryName: string; targets: string[] };
}

/** napi-rs's platform name: `<platform>-<arch>[-<abi>]`, e.g. `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`. */
export function platformName(platform: string, arch: string, libc: 'gnu' | 'musl' | undefined): string {
  if (platform === 'linux') return `${platform}-${arch}-${libc ?? 'gnu'}`;
  if (platform === 'win32') return `${platform}-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** Rust's names for what Node calls `process.arch` and `process.platform`. */
const NODE_ARCH: Record<string, string> = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' };
const NODE_PLATFORM: Record<string, string> = {
  linux: 'linux',
  darwin: 'darwin',
  windows: 'win32',
  freebsd: 'freebsd',
};

/** The napi-rs platform name of a Rust target triple: `x86_64-unknown-linux-gnu` → `linux-x64-gnu`. */
export function platformOfTarget(triple: string): string {
  const [arch, , system, abi] = triple.split('-');
  const name = [NODE_PLATFORM[system] ?? system, NODE_ARCH[arch] ?? arch];
  if (abi && system !== 'darwin') name.push(abi);
  return name.join('-');
}

/** The C library of this Linux machine: glibc reports its version in the process report, musl does not. */
function currentLibc(): 'gnu' | 'musl' | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    return header?.glibcVersionRuntime ? 'gnu' : 'musl';
  } catch {
    return 'gnu';
  }
}

/** The platforms a prebuilt addon exists for. */
export function prebuiltPlatforms(manifest: PackageManifest): string[] {
  return manifest.napi.targets.map(platformOfTarget).sort();
}

/** An error with a stable code and a remedy, like every error of this package. */
function platformError(code: string, message: string, remedy: string): Error {
  return Object.assign(new Error(`${message} ${remedy}`), { code, remedy });
}

/**
 * Why the addon for `platform` cannot load, or `undefined` when it can be found: beside the package (a build from
 * source) or as the per-platform package.
 */
export function addonProblem(
  manifest: PackageManifest,
  platform: string,
  isInstalled: (file: string) => boolean,
  resolves: (request: string) => boolean,
): Error | undefined {
  if (isInstalled(`${manifest.napi.binaryName}.${platform}.node`)) return undefined;
  const platforms = prebuiltPlatforms(manifest);
  const packageName = `${manifest.name}-${platform}`;
  if (!platforms.includes(platform)) {
    return platformError(
      'UNSUPPORTED_PLATFORM',
      `${manifest.name} has no prebuilt addon for ${platform}. Prebuilt addons exist for: ${platforms.join(', ')}.`,
      'Run on one of those platforms, or build the addon from source (see "Develop it" in the README).',
    );
  }
  if (!resolves(packageName)) {
    return platformError(
      'ADDON_NOT_INSTALLED',
      `The addon package for this platform, ${packageName}, is not installed.`,
      `Install it (npm install ${packageName}@${manifest.version}), or reinstall without --omit=optional / --no-optional.`,
    );
  }
  return undefined;
}

/** Throws a clear, coded error when this machine's addon cannot be found; otherwise the loader takes over. */
export function assertAddonAvailable(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const manifest = require(join(PACKAGE_ROOT, 'package.json')) as PackageManifest;
  const problem = addonProblem(
    manifest,
    platformName(process.platform, process.arch, currentLibc()),
    (file) => existsSync(join(PACKAGE_ROOT, file)),
    (request) => {
      try {
        require.resolve(request, { paths: [PACKAGE_ROOT] });
        return true;
      } catch {
        return false;
      }
    },
  );
  if (problem) throw problem;
}

assertAddonAvailable();
