# Installs the esign executable for Windows (x64) from a release: install.sh's counterpart, with the
# same checks and the same variables.
#
#   irm https://github.com/<owner>/esign/releases/download/v<version>/install.ps1 | iex
#   powershell -ExecutionPolicy Bypass -File install.ps1
#
#   ESIGN_DOWNLOAD_URL   the folder that holds esign-<version>-win-x64.zip and SHA256SUMS
#                        (default: this release on GitHub); https only
#   ESIGN_VERSION        the version to install (default: the one this script was released with)
#   ESIGN_INSTALL_DIR    where esign.exe goes (default: %LOCALAPPDATA%\Programs\esign)
#   ESIGN_INSTALL_REQUIRE_ATTESTATION=1
#                        install only when the archive's build provenance was verified with
#                        `gh attestation verify` (otherwise a check that cannot be done is reported)
#   ESIGN_INSTALL_ALLOW_HTTP=1
#                        allows plain http, to 127.0.0.1 or localhost alone (for tests)
#
# Downloads with curl.exe (part of Windows 10 1803 and later), https only, redirects included. The
# archive must match its line in SHA256SUMS; when the GitHub CLI is there, its build provenance is
# verified too. esign.exe is written to a new file under a random name in the install folder (never
# an existing one), then moved over esign.exe, which must be a regular file if it exists. Anything
# that fails installs nothing, says why, and exits 1 (or, run through `iex`, stops without closing
# the window). Windows PowerShell 5.1 and PowerShell 7.
#
# Everything runs inside `& { ... }`, a scope of its own: through `irm | iex` the script's text runs
# in the user's session, where its preferences, strict mode, functions and variables would otherwise
# stay after it finished. Nothing is set in the caller's scope but $LASTEXITCODE on a failure there.
#
# This script has not been run: esign's machines have no Windows. See the README.

& {
  $ErrorActionPreference = 'Stop'
  Set-StrictMode -Version 3.0

  $ReleaseVersion = '0.1.0'
  $ReleaseRepository = 'your-org/esign'

  # What Stop-Install says beyond its message: read by the catch at the end, which prints both. A
  # table in this block's scope, which the functions change in place ($script: would be the user's
  # session through `iex`).
  $Failure = @{ Hint = '' }

  function Stop-Install([string]$Message, [string]$Hint = '') {
    $Failure.Hint = $Hint
    throw $Message
  }

  function Get-Setting([string]$Name, [string]$Default) {
    $value = [Environment]::GetEnvironmentVariable($Name)
    if ([string]::IsNullOrEmpty($value)) { return $Default }
    return $value
  }

  # https, or plain http to this machine when a test asks for it. The authority is compared whole.
  function Get-Scheme([string]$BaseUrl) {
    if ($BaseUrl -match '^https://[^/]') { return 'https' }
    if ($BaseUrl -match '^http://') {
      $loopback = $BaseUrl -match '^http://(127\.0\.0\.1|localhost)(:[0-9]+)?(/|$)'
      if ($loopback -and (Get-Setting 'ESIGN_INSTALL_ALLOW_HTTP' '') -eq '1') { return 'http' }
      if ($loopback) {
        Stop-Install "Refusing ${BaseUrl}: downloads are https only." 'Plain http to 127.0.0.1 or localhost is allowed for tests, with ESIGN_INSTALL_ALLOW_HTTP=1.'
      }
      Stop-Install "Refusing ${BaseUrl}: downloads are https only." 'Plain http can be read and changed by anyone on the way; use the https URL of the release.'
    }
    Stop-Install "Refusing ESIGN_DOWNLOAD_URL `"$BaseUrl`": it must be an https:// URL."
  }

  function Save-Download([string]$Url, [string]$OutFile, [string]$Scheme) {
    $protocols = if ($Scheme -eq 'https') { '=https' } else { '=http,https' }
    & curl.exe --proto $protocols --proto-redir '=https' '--tlsv1.2' -fsSL --retry '2' -o $OutFile $Url
    if ($LASTEXITCODE -eq 1) {
      Stop-Install "Refusing a redirect from $Url to a URL that is not https: downloads are https only. Nothing installed."
    }
    if ($LASTEXITCODE -ne 0) { Stop-Install "Could not download $Url (with curl.exe): nothing installed." }
  }

  function Get-ExpectedSum([string]$SumsFile, [string]$Archive) {
    foreach ($line in Get-Content -LiteralPath $SumsFile) {
      if ($line -match '^([0-9a-fA-F]{64}) [ *](.+)$' -and $Matches[2] -eq $Archive) { return $Matches[1].ToLowerInvariant() }
    }
    Stop-Install "SHA256SUMS has no sum for ${Archive}: nothing installed."
  }

  # Build provenance: $null when verified, else why it could not be checked. A failed verification stops.
  function Test-Provenance([string]$File, [string]$Archive) {
    if (-not (Get-Command gh -CommandType Application -ErrorAction SilentlyContinue)) { return 'the GitHub CLI (gh) is not installed' }
    & gh attestation verify --help 2>&1 | Out-Null
    if ($LASTEXITCODE -ne 0) { return "this gh has no 'attestation' command (gh 2.49 or later has)" }
    & gh auth status 2>&1 | Out-Null
    if ($LASTEXITCODE -ne 0) { return 'gh is not logged in (gh auth login, or GH_TOKEN)' }
    $output = & gh attestation verify $File --repo $ReleaseRepository 2>&1
    if ($LASTEXITCODE -ne 0) {
      foreach ($line in $output) { [Console]::Error.WriteLine("  gh: $line") }
      Stop-Install "The build provenance of $Archive could not be verified (gh attestation verify $Archive --repo $ReleaseRepository): nothing installed." 'The archive was not built by the release workflow of that repository, or gh could not reach GitHub.'
    }
    return $null
  }

  function Test-PlainFile([string]$Path) {
    $item = Get-Item -LiteralPath $Path -Force
    return (-not $item.PSIsContainer) -and -not ($item.Attributes -band [IO.FileAttributes]::ReparsePoint)
  }

  # A new file under a random name in the install folder: CreateNew fails rather than open anything
  # that is already there (a file, a link), as mktemp does.
  function New-TemporaryFileIn([string]$Folder) {
    for ($try = 0; $try -lt 10; $try++) {
      $path = Join-Path $Folder ('.esign.' + [IO.Path]::GetRandomFileName())
      try {
        return @{ Path = $path; Stream = [IO.File]::Open($path, [IO.FileMode]::CreateNew, [IO.FileAccess]::Write, [IO.FileShare]::None) }
      } catch [IO.IOException] {
        continue
      }
    }
    Stop-Install "Could not create a temporary file in $Folder."
  }

  function Install-Executable([string]$Source, [string]$InstallDir) {
    New-Item -ItemType Directory -Force -Path $InstallDir | Out-Null
    $target = Join-Path $InstallDir 'esign.exe'
    if ((Test-Path -LiteralPath $target) -and -not (Test-PlainFile $target)) {
      Stop-Install "$target exists and is not a regular file: nothing installed." 'Move it out of the way, or set ESIGN_INSTALL_DIR to another folder.'
    }
    $temporary = New-TemporaryFileIn $InstallDir
    try {
      $in = [IO.File]::OpenRead($Source)
      try { $in.CopyTo($temporary.Stream) } finally { $in.Dispose() }
      $temporary.Stream.Dispose()
      if (Test-Path -LiteralPath $target) {
        try {
          [IO.File]::Replace($temporary.Path, $target, [NullString]::Value)
        } catch {
          Stop-Install "Could not replace ${target}: is esign running? Close it, then run this again."
        }
      } else {
        [IO.File]::Move($temporary.Path, $target)
      }
    } finally {
      $temporary.Stream.Dispose()
      if (Test-Path -LiteralPath $temporary.Path) { Remove-Item -LiteralPath $temporary.Path -Force }
    }
    if (-not (Test-PlainFile $target)) { Stop-Install "$target changed while it was installed (it is not the file just written): check it." }
    return $target
  }

  function Install-Esign {
    $version = Get-Setting 'ESIGN_VERSION' $ReleaseVersion
    if ($version -notmatch '^[0-9A-Za-z.+-]+$') { Stop-Install "ESIGN_VERSION `"$version`" is not a version (such as $ReleaseVersion)." }
    $baseUrl = (Get-Setting 'ESIGN_DOWNLOAD_URL' "https://github.com/$ReleaseRepository/releases/download/v$version").TrimEnd('/')
    $installDir = Get-Setting 'ESIGN_INSTALL_DIR' (Join-Path $env:LOCALAPPDATA 'Programs\esign')
    $scheme = Get-Scheme $baseUrl
    if ($env:PROCESSOR_ARCHITECTURE -ne 'AMD64' -and $env:PROCESSOR_ARCHITEW6432 -ne 'AMD64') {
      Stop-Install "No esign executable for this processor ($env:PROCESSOR_ARCHITECTURE)." 'Install with npm instead (see the README).'
    }
    if (-not (Get-Command curl.exe -CommandType Application -ErrorAction SilentlyContinue)) {
      Stop-Install 'curl.exe is not there (Windows 10 1803 and later have it): nothing installed.'
    }
    $archive = "esign-$version-win-x64.zip"
    $work = Join-Path ([IO.Path]::GetTempPath()) ('esign-install.' + [IO.Path]::GetRandomFileName())
    New-Item -ItemType Directory -Path $work | Out-Null
    try {
      Save-Download "$baseUrl/SHA256SUMS" (Join-Path $work 'SHA256SUMS') $scheme
      Save-Download "$baseUrl/$archive" (Join-Path $work $archive) $scheme
      $expected = Get-ExpectedSum (Join-Path $work 'SHA256SUMS') $archive
      $actual = (Get-FileHash -Algorithm SHA256 -LiteralPath (Join-Path $work $archive)).Hash.ToLowerInvariant()
      if ($actual -ne $expected) {
        Stop-Install "$archive does not match its sum in SHA256SUMS: nothing installed." "expected $expected, got $actual; the download is damaged or not the release."
      }
      $checked = @("  - $archive matches its SHA-256 in SHA256SUMS, both downloaded over $scheme from $baseUrl")
      $verifyCommand = "gh attestation verify $archive --repo $ReleaseRepository"
      $notChecked = Test-Provenance (Join-Path $work $archive) $archive
      if ($null -eq $notChecked) { $checked += "  - its build provenance: $verifyCommand" }
      elseif ((Get-Setting 'ESIGN_INSTALL_REQUIRE_ATTESTATION' '') -eq '1') {
        Stop-Install "ESIGN_INSTALL_REQUIRE_ATTESTATION=1, but the build provenance could not be checked: $notChecked. Nothing installed."
      }

      $unpacked = Join-Path $work 'unpacked'
      Expand-Archive -LiteralPath (Join-Path $work $archive) -DestinationPath $unpacked
      $binary = Join-Path $unpacked 'esign.exe'
      if (-not (Test-Path -LiteralPath $binary) -or -not (Test-PlainFile $binary)) { Stop-Install "$archive does not hold esign.exe as a file: nothing installed." }
      $got = (& $binary --version 2>$null | Out-String).Trim()
      if ($LASTEXITCODE -ne 0) { Stop-Install "The esign.exe in $archive does not run on this machine: nothing installed." }
      if ($got -ne $version) { Stop-Install "$archive holds esign $got, not ${version}: nothing installed." }

      $target = Install-Executable $binary $installDir
    } finally {
      Remove-Item -LiteralPath $work -Recurse -Force -ErrorAction SilentlyContinue
    }

    Write-Output "Installed esign $version in $target"
    Write-Output 'Checked:'
    $checked | Write-Output
    if ($null -ne $notChecked) {
      Write-Output "Not checked: its build provenance, because $notChecked."
      Write-Output '  SHA256SUMS comes from the same place as the archive: it shows the download is whole, not who built it.'
      Write-Output "  To check that too, with the GitHub CLI: $verifyCommand"
    }
    if (-not (($env:Path -split ';') -contains $installDir)) {
      Write-Output "$installDir is not on your PATH: add it for your account with"
      Write-Output "  [Environment]::SetEnvironmentVariable('Path', `"$installDir;`" + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')"
    }
  }

  try {
    Install-Esign
  } catch {
    [Console]::Error.WriteLine("esign install: $($_.Exception.Message)")
    if ($Failure.Hint) { [Console]::Error.WriteLine("  $($Failure.Hint)") }
    # Run as a file (this block was invoked from it: ScriptName is its path): exit 1. Through
    # `irm | iex` (invoked from no script: ScriptName is ''), exit would close the user's window or
    # end the user's own script, so stop here, with $LASTEXITCODE saying it failed.
    if ($MyInvocation.ScriptName) { exit 1 }
    $global:LASTEXITCODE = 1
  }
}
