vim9script
set hidden
# Headless test of the Vim client against the built worker: vim -Nu NONE -i NONE -es -S this file.
# Needs $PHOTOWORKER_BIN and $PHOTOWORKER_CORPUS; writes its verdict to $PHOTOWORKER_TEST_OUT (and the
# worker's pid to $PHOTOWORKER_TEST_OUT.pid for the runner's orphan check); quits with an error on failure.

var root = expand('<sfile>:p:h:h')
execute 'set runtimepath^=' .. fnameescape(root)
runtime plugin/photoworker.vim

var failures: list<string> = []
var passed = 0
var out = getenv('PHOTOWORKER_TEST_OUT')
var corpus = getenv('PHOTOWORKER_CORPUS')
var scratch = tempname()
mkdir(scratch, 'p')

def Check(ok: bool, what: string)
  if ok
    passed += 1
  else
    add(failures, what)
  endif
enddef

# Runs Vim's event loop (channel callbacks) until `Cond` holds or `seconds` pass.
def WaitFor(Cond: func(): bool, seconds: float): bool
  var start = reltime()
  while !Cond() && reltimefloat(reltime(start)) < seconds
    sleep 10m
  endwhile
  return Cond()
enddef

# A copy of a corpus photo in the scratch folder (or a folder below it), so outputs land there.
def Photo(name: string, folder = ''): string
  var dir = folder == '' ? scratch : scratch .. '/' .. folder
  mkdir(dir, 'p')
  var dest = dir .. '/' .. name
  writefile(readfile(corpus .. '/photos/' .. name, 'B'), dest, 'B')
  return dest
enddef

# --- palette: hex codes inserted at the cursor, for the image named under the cursor
var girl = Photo('girl-1.jpg')
enew!
setline(1, ['colours of ' .. girl .. ': '])
cursor(1, 1)
search('girl-1')
var before = getline(1)
PhotoworkerPalette 4
Check(WaitFor(() => getline(1) =~ '#\x\{6}', 30.0), 'palette inserted hex codes: ' .. getline(1))
Check(len(split(matchstr(getline(1), '\(#\x\{6} \?\)\+'))) == 4, 'four colours: ' .. getline(1))
writefile([string(photoworker#Pid())], out .. '.pid')

# --- the phone's formats count as images under the cursor: a HEIC's palette
var heic = scratch .. '/girl.heic'
writefile(readfile(corpus .. '/formats/girl.heic', 'B'), heic, 'B')
enew!
setline(1, ['colours of ' .. heic .. ': '])
cursor(1, 1)
search('girl.heic')
PhotoworkerPalette 3
Check(WaitFor(() => getline(1) =~ '#\x\{6}', 30.0), 'HEIC palette inserted hex codes: ' .. getline(1))

# --- thumbnail and sticker of the buffer's own image
execute 'edit! ' .. fnameescape(girl)
PhotoworkerThumbnail 64
Check(WaitFor(() => filereadable(scratch .. '/girl-1-thumb.jpg'), 30.0), 'thumbnail written')
PhotoworkerSticker
Check(WaitFor(() => filereadable(scratch .. '/girl-1-sticker.png'), 60.0), 'sticker written')

# --- a clip under the cursor: its sticker is animated, cut in every frame
var clip = scratch .. '/cutout.mp4'
writefile(readfile(corpus .. '/motion/cutout.mp4', 'B'), clip, 'B')
enew!
setline(1, ['the clip ' .. clip])
cursor(1, 1)
search('cutout')
PhotoworkerSticker
Check(WaitFor(() => execute('messages') =~ 'animated sticker: 12 frames -> ', 60.0),
  'the clip''s animated sticker is reported: ' .. execute('messages'))
Check(filereadable(scratch .. '/cutout-sticker.webp'), 'the animated sticker written')

# --- the separate subjects of a two-subject photo, each with its point; the sticker of the one a point selects
var pair = scratch .. '/pair.jpg'
writefile(readfile(corpus .. '/subjects/pair.jpg', 'b'), pair, 'b')
execute 'edit! ' .. fnameescape(pair)
PhotoworkerSubjects
Check(WaitFor(() => execute('messages') =~ 'subject 2: ', 60.0), 'two subjects listed: ' .. execute('messages'))
var right = matchlist(execute('messages'), 'subject \d: box \(1[5-9]\d\|[2-9]\d\d\),\d\+ \d\+x\d\+, point \(\d\+\) \(\d\+\)')
Check(!empty(right), 'the right-hand subject is listed with its point: ' .. execute('messages'))
if !empty(right)
  execute 'PhotoworkerSticker ' .. right[2] .. ' ' .. right[3]
  var told = 'sticker of the subject at ' .. right[2] .. ' ' .. right[3] .. ': box '
  Check(WaitFor(() => execute('messages') =~ told, 60.0), 'the pointed sticker is reported: ' .. execute('messages'))
  var box = matchlist(execute('messages'), told .. '\(\d\+\),')
  Check(!empty(box) && str2nr(box[1]) >= 156 && filereadable(scratch .. '/pair-sticker.png'),
    'the right-hand subject alone: ' .. execute('messages'))
endif
PhotoworkerSticker 12
Check(execute('messages') =~ 'a point is two numbers', 'a point of one number is explained')

# --- a folder with progress in the status line
for name in ['girl-1.jpg', 'animal-2.jpg', 'car-1.jpg']
  Photo(name, 'batch')
endfor
var seen: list<string> = []
var timer = timer_start(5, (_) => add(seen, photoworker#Status()), {repeat: -1})
execute 'PhotoworkerProcess ' .. fnameescape(scratch .. '/batch')
Check(WaitFor(() => execute('messages') =~ '3 done, 0 failed', 120.0), 'the folder is reported done')
timer_stop(timer)
Check(len(glob(scratch .. '/batch/photoworker-out/*-sticker.png', false, true)) == 3, 'three stickers from the folder')
Check(!empty(filter(copy(seen), (_, s) => s =~ '^photos.process [123]/3$')),
  'progress shown in the status line: ' .. string(uniq(copy(seen))))

# --- cancellation: the running job is answered -32800
var answer: dict<any> = {}
photoworker#Request('diagnostics.sleep', {ms: 60000}, (result, error) => {
  answer = error == null ? {result: result} : error
})
PhotoworkerCancel
Check(WaitFor(() => !empty(answer), 10.0) && get(answer, 'code', 0) == -32800, 'cancelled with -32800: ' .. string(answer))

# --- a missing image is a clear message, not an error trace
enew!
setline(1, 'nothing here')
var messages_before = execute('messages')
PhotoworkerPalette
Check(execute('messages') =~ 'no image', 'no image under the cursor is explained')

writefile([printf('%d passed, %d failed', passed, len(failures))] + failures, out)
if empty(failures)
  qall!
else
  cquit!
endif
