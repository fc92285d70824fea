vim9script
# The worker: spawned on first use from $PHOTOWORKER_BIN or PATH, one per Vim session, driven through a
# job channel in 'lsp' mode (the worker detects the Content-Length framing and answers in it).

var job: job = null_job
var channel: channel = null_channel
# Requests in flight: id -> method.
var running: dict<string> = {}
# Shown by photoworker#Status() (put %{photoworker#Status()} in 'statusline') and echoed.
var status = ''

const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp', 'gif', 'heic', 'heif', 'avif']
# Clips (a Live Photo's .mov among them): their sticker is an animated one.
const CLIP_EXTENSIONS = ['mp4', 'm4v', 'mov', 'webm', 'mkv']

def Executable(): string
  var bin = getenv('PHOTOWORKER_BIN')
  if bin != null && bin != ''
    return bin
  endif
  return exepath('photoworker')
enddef

def Message(text: string, error = false)
  if error
    echohl ErrorMsg
  endif
  echomsg 'photoworker: ' .. text
  echohl None
enddef

# The channel, starting the worker on first use; null_channel (with a message) when it cannot start.
export def Channel(): channel
  if job != null_job && job_status(job) == 'run'
    return channel
  endif
  var bin = Executable()
  if bin == '' || !executable(bin)
    Message('photoworker not found: set $PHOTOWORKER_BIN or put photoworker on PATH', true)
    return null_channel
  endif
  job = job_start([bin], {
    in_mode: 'lsp', out_mode: 'lsp', err_mode: 'nl',
    callback: (_, msg) => OnNotification(msg),
    err_cb: (_, line) => 0,
    exit_cb: (_, code) => OnExit(code),
    stoponexit: 'term',
  })
  if job_status(job) != 'run'
    Message('could not start ' .. bin, true)
    return null_channel
  endif
  channel = job_getchannel(job)
  return channel
enddef

# The worker's process id (0 when none runs): for tests and for users who want to watch it.
export def Pid(): number
  return job != null_job && job_status(job) == 'run' ? job_info(job).process : 0
enddef

export def Status(): string
  return status
enddef

def SetStatus(text: string)
  status = text
  redrawstatus
  if text != ''
    echo 'photoworker: ' .. text
  endif
enddef

def OnNotification(msg: dict<any>)
  if get(msg, 'method', '') != '$/progress'
    return
  endif
  var p = msg.params
  if get(p, 'kind', '') == 'progress' && has_key(p, 'total')
    SetStatus(printf('%s %d/%d', get(running, string(p.id), 'job'), p.done, p.total))
  endif
enddef

def OnExit(code: number)
  job = null_job
  channel = null_channel
  running = {}
  SetStatus('')
enddef

# Sends a request; `Done(result, error)` is called with the result or the error dict (one is null).
# Returns the request id (0 when the worker could not start).
export def Request(method: string, params: dict<any>, Done: func(any, any)): number
  var ch = Channel()
  if ch == null_channel
    return 0
  endif
  var sent = ch_sendexpr(ch, {method: method, params: params}, {
    callback: (_, reply) => Reply(reply, Done)})
  running[string(sent.id)] = method
  return sent.id
enddef

def Reply(reply: dict<any>, Done: func(any, any))
  var key = string(get(reply, 'id', ''))
  if has_key(running, key)
    remove(running, key)
  endif
  if empty(running)
    SetStatus('')
  endif
  if has_key(reply, 'error')
    Done(null, reply.error)
  else
    Done(get(reply, 'result', {}), null)
  endif
enddef

def ErrorText(error: dict<any>): string
  var data = get(error, 'data', {})
  var detail = type(data) == v:t_dict ? get(data, 'reason', get(data, 'detail', '')) : ''
  return printf('%s (%d)%s', error.message, error.code, detail == '' ? '' : ': ' .. detail)
enddef

# The image to work on: the file name under the cursor if it is an image, else the buffer's file.
export def Target(): string
  for candidate in [expand('<cfile>'), expand('%:p')]
    if candidate == ''
      continue
    endif
    var path = fnamemodify(candidate, ':p')
    if !filereadable(path) && expand('%:p:h') != ''
      path = expand('%:p:h') .. '/' .. candidate
    endif
    if filereadable(path) && index(IMAGE_EXTENSIONS + CLIP_EXTENSIONS, tolower(fnamemodify(path, ':e'))) >= 0
      return fnamemodify(path, ':p')
    endif
  endfor
  return ''
enddef

def TargetOrComplain(): string
  var path = Target()
  if path == ''
    Message('no image (.jpg, .png, .webp, .gif, .heic, .avif) or clip (.mp4, .mov, .webm) under the cursor or in this buffer', true)
  endif
  return path
enddef

export def Thumbnail(size: string)
  var src = TargetOrComplain()
  if src == ''
    return
  endif
  var out = fnamemodify(src, ':r') .. '-thumb.jpg'
  Request('image.thumbnail', {source: {path: src}, size: size == '' ? 256 : str2nr(size), output: {path: out}},
    (result, error) => error == null
      ? Message(printf('thumbnail %dx%d -> %s', result.output.width, result.output.height, out))
      : Message(ErrorText(error), true))
enddef

# Inserts the palette's hex codes at the cursor (in the window that asked for them).
export def Palette(count: string)
  var src = TargetOrComplain()
  if src == ''
    return
  endif
  var buf = bufnr()
  var pos = getcurpos()
  Request('image.palette', {source: {path: src}, count: count == '' ? 5 : str2nr(count)},
    (result, error) => error == null ? InsertColors(buf, pos, result.colors) : Message(ErrorText(error), true))
enddef

def InsertColors(buf: number, pos: list<number>, colors: list<any>)
  var text = join(mapnew(colors, (_, c) => c.hex), ' ')
  var line = getbufline(buf, pos[1])[0]
  setbufline(buf, pos[1], strpart(line, 0, pos[2]) .. text .. strpart(line, pos[2]))
  Message('palette ' .. text)
enddef

def BoxText(b: dict<any>): string
  return printf('%d,%d %dx%d', b.x, b.y, b.width, b.height)
enddef

# Cuts the subject out as NAME-sticker.png; of a clip, in every frame, as NAME-sticker.webp (animated WebP). `point`
# "X Y" (a pixel of the photo as displayed, after its EXIF orientation, or of the clip's first frame;
# :PhotoworkerSubjects lists one per subject of a photo) cuts the subject under that point instead.
export def Sticker(point: string = '')
  var src = TargetOrComplain()
  if src == ''
    return
  endif
  var clip = index(CLIP_EXTENSIONS, tolower(fnamemodify(src, ':e'))) >= 0
  var out = fnamemodify(src, ':r') .. (clip ? '-sticker.webp' : '-sticker.png')
  var params: dict<any> = {source: {path: src}, output: {path: out}}
  var what = 'sticker'
  if point =~ '\S'
    var m = matchlist(point, '^\s*\(\d\+\)\s\+\(\d\+\)\s*$')
    if empty(m)
      Message('a point is two numbers, X Y: a pixel of the photo', true)
      return
    endif
    params.subject = {point: [str2nr(m[1]), str2nr(m[2])]}
    what = printf('sticker of the subject at %s %s', m[1], m[2])
  endif
  if clip
    Request('image.animatedSticker', params,
      (result, error) => error == null
        ? Message(printf('animated %s: %d frames -> %s', what, result.frames, out))
        : Message(ErrorText(error), true))
    return
  endif
  Request('image.sticker', params,
    (result, error) => error == null
      ? Message(printf('%s: box %s -> %s', what, BoxText(result.boundingBox), out))
      : Message(ErrorText(error), true))
enddef

# Lists the photo's separate subjects, largest first, each with the point that selects it.
export def Subjects()
  var src = TargetOrComplain()
  if src == ''
    return
  endif
  Request('image.subjects', {source: {path: src}},
    (result, error) => error == null ? ListSubjects(result.subjects) : Message(ErrorText(error), true))
enddef

def ListSubjects(subjects: list<any>)
  if empty(subjects)
    Message('no subject found')
  endif
  var i = 1
  for s in subjects
    Message(printf('subject %d: box %s, point %d %d (:PhotoworkerSticker %d %d)', i, BoxText(s.box),
      s.point[0], s.point[1], s.point[0], s.point[1]))
    i += 1
  endfor
enddef

# Stickers, gradients and palettes for every image of a folder, with progress in the status line.
export def Process(folder: string)
  var dir = fnamemodify(folder == '' ? (expand('%:p:h') == '' ? getcwd() : expand('%:p:h')) : folder, ':p')
  var files = filter(glob(dir .. '/*', false, true), (_, f) => index(IMAGE_EXTENSIONS, tolower(fnamemodify(f, ':e'))) >= 0)
  if empty(files)
    Message('no images in ' .. dir, true)
    return
  endif
  var out = substitute(dir, '/$', '', '') .. '/photoworker-out'
  SetStatus(printf('photos.process 0/%d', len(files)))
  Request('photos.process', {sources: mapnew(files, (_, f) => ({path: f})), output: {dir: out}},
    (result, error) => error == null
      ? Message(printf('%d done, %d failed -> %s', result.completed, result.failed, out))
      : Message(ErrorText(error), true))
enddef

# Cancels every request in flight; each is answered -32800 through its callback.
export def Cancel()
  if channel == null_channel || empty(running)
    Message('nothing is running')
    return
  endif
  for id in keys(running)
    ch_sendexpr(channel, {method: '$/cancelRequest', params: {id: str2nr(id)}})
  endfor
  Message('cancelled ' .. join(values(running), ', '))
enddef

# Cancels what runs and ends the worker (also on VimLeavePre).
export def Stop()
  if job == null_job || job_status(job) != 'run'
    return
  endif
  var j = job
  for id in keys(running)
    ch_sendexpr(channel, {method: '$/cancelRequest', params: {id: str2nr(id)}})
  endfor
  ch_sendexpr(channel, {method: 'exit'})
  # The worker exits at once on `exit`; a stuck one is terminated after a second.
  var deadline = reltime()
  while job_status(j) == 'run' && reltimefloat(reltime(deadline)) < 1.0
    sleep 10m
  endwhile
  if job_status(j) == 'run'
    job_stop(j, 'kill')
  endif
enddef
