# A stand-in for Homebrew, enough to run the formula `npm run release` writes (esign.rb) as brew
# would: the formula file is loaded as Ruby, its download checked against its sha256, unpacked, its
# `install` run with Homebrew's npm arguments into a prefix, then its `test do` block. Only the DSL
# that formula uses is here, each part doing what Homebrew's does (std_npm_args packs the unpacked
# source with `npm pack --ignore-scripts` and installs that, globally, into libexec; completions go
# where Homebrew puts them). Homebrew itself cannot run on this machine; this checks the formula's
# own logic against the release's real tarball.
#
#   ruby brew-stand-in.rb FORMULA TARBALL PREFIX
# Prints one line a step; exits 1 with the failed step.
require "digest"
require "fileutils"
require "pathname"
require "tmpdir"

class Pathname
  def install(*sources)
    mkpath
    sources.flatten.each { |source| FileUtils.cp_r(source.to_s, (self / File.basename(source.to_s)).to_s) }
  end

  def install_symlink(*sources)
    mkpath
    sources.flatten.each { |source| File.symlink(source.to_s, (self / File.basename(source.to_s)).to_s) }
  end
end

class Formula
  class << self
    attr_reader :spec, :test_block

    def method_missing(name, *args)
      (@spec ||= {})[name] = args.length == 1 ? args.first : args
    end

    def respond_to_missing?(*) = true

    def test(&block)
      @test_block = block
    end
  end

  attr_reader :prefix

  def initialize(prefix, buildpath)
    @prefix = Pathname(prefix)
    @buildpath = Pathname(buildpath)
  end

  def libexec = prefix / "libexec"
  def bin = prefix / "bin"
  def man1 = prefix / "share/man/man1"
  def bash_completion = prefix / "etc/bash_completion.d"
  def zsh_completion = prefix / "share/zsh/site-functions"
  def fish_completion = prefix / "share/fish/vendor_completions.d"
  def version = self.class.spec[:url][/-(\d+\.\d+\.\d+[^\/]*)\.tgz\z/, 1]

  def std_npm_args
    packed = `npm pack --ignore-scripts --silent`.lines.last.strip
    raise "npm pack failed" unless $?.success?
    %W[--global --build-from-source --no-audit --no-fund --cache=#{@buildpath}/npm_cache --prefix=#{libexec} #{@buildpath}/#{packed}]
  end

  def system(*args)
    Kernel.system(*args.map(&:to_s)) || raise("#{args.join(" ")} failed")
  end

  def generate_completions_from_executable(executable, *args, shells: [:bash, :zsh, :fish])
    names = { bash: bash_completion / "esign", zsh: zsh_completion / "_esign", fish: fish_completion / "esign.fish" }
    shells.each do |shell|
      output = IO.popen([executable.to_s, *args.map(&:to_s), shell.to_s], &:read)
      raise "#{executable} #{args.join(" ")} #{shell} failed" unless $?.success?
      names[shell].dirname.mkpath
      names[shell].write(output)
    end
  end

  def shell_output(command)
    output = IO.popen(command, &:read)
    raise "#{command} exited #{$?.exitstatus}" unless $?.success?
    output
  end

  def assert_equal(expected, actual) = (expected == actual) || raise("expected #{expected.inspect}, got #{actual.inspect}")
  def assert_match(pattern, text) = text.match?(pattern) || raise("#{pattern.inspect} not in the output")
end

formula_file, tarball, prefix = ARGV
load formula_file
spec = Esign.spec
raise "the formula depends on #{spec[:depends_on].inspect}, not node" unless spec[:depends_on] == "node"
raise "the url names #{File.basename(spec[:url])}, the download is #{File.basename(tarball)}" unless File.basename(spec[:url]) == File.basename(tarball)
raise "sha256 mismatch" unless Digest::SHA256.file(tarball).hexdigest == spec[:sha256]
puts "ok  download: #{File.basename(tarball)} matches the formula's sha256"
Dir.mktmpdir do |build|
  system("tar", "-xzf", tarball, "-C", build) || raise("cannot unpack #{tarball}")
  # brew enters the archive's one top folder (package/) to build.
  Dir.chdir(File.join(build, "package")) do
    formula = Esign.new(prefix, File.join(build, "package"))
    formula.install
    puts "ok  install"
    formula.instance_eval(&Esign.test_block)
    puts "ok  test do"
  end
end
