vim9script
# PhotoWorker for Vim 9: thumbnails, palettes, stickers and folders through one photoworker process per
# Vim session, spoken to with Vim's own LSP channel mode (Content-Length framing). See clients/vim/README.md.

if exists('g:loaded_photoworker')
  finish
endif
g:loaded_photoworker = 1

command! -nargs=? PhotoworkerThumbnail photoworker#Thumbnail(<q-args>)
command! -nargs=? PhotoworkerPalette photoworker#Palette(<q-args>)
command! -nargs=* PhotoworkerSticker photoworker#Sticker(<q-args>)
command! -nargs=0 PhotoworkerSubjects photoworker#Subjects()
command! -nargs=? -complete=dir PhotoworkerProcess photoworker#Process(<q-args>)
command! -nargs=0 PhotoworkerCancel photoworker#Cancel()
command! -nargs=0 PhotoworkerStop photoworker#Stop()

augroup photoworker
  autocmd!
  # Cancel what runs and end the worker with the editor: no process outlives Vim.
  autocmd VimLeavePre * photoworker#Stop()
augroup END
