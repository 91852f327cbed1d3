/**
 * Every `fairground` command. Add a command by creating a file in this folder that exports a
 * `CliCommand` and listing it here (one line each, kept alphabetical by path).
 */
import type { CliCommand } from '../command';
import { collectionImport, collectionInfo, collectionList } from './collection';
import { conversationEvaluate, conversationExport, conversationImport } from './conversation';
import { evalCompareCommand } from './evalCompare';
import { evalExposureCommand } from './evalExposure';
import { evalGfrc2Command } from './evalGfrc2';
import { evalIrCommand } from './evalIr';
import { evalTextCommand } from './evalText';
import { experimentExport, experimentList, experimentShow } from './experiment';
import { labelExportCommand } from './labelExport';
import { labelUtilityCommand } from './labelUtility';
import { modelAddSimCommand } from './modelAddSim';
import { modelAddCommand, modelInfoCommand, modelListCommand, modelRemoveCommand } from './modelLibrary';
import { modelMakeTinyCommand } from './modelMakeTiny';
import { modelTryCommand } from './modelTry';
import { modelTuneCommand } from './modelTune';
import { moiSolveCommand } from './moiSolve';
import { cacheImportCommand, cacheMergeCommand, planExportCommand } from './plan';
import { remoteAddCommand, remoteEndpointsCommand, remoteListCommand, remoteRemoveCommand } from './remote';
import { retrieveCommand } from './retrieve';
import { retrieveSearchCommand } from './retrieveSearch';
import { richragCoverageCommand } from './richragCoverage';
import { runCommand } from './run';
import { sampleCommand } from './sample';
import { serve } from './serve';
import { simulatePowerCommand } from './simulatePower';
import { statsCompareCommand } from './statsCompare';
import { workspaceCheck, workspaceInfo, workspaceInit, workspaceMigrate } from './workspace';
import { modelDownloadCommand } from './modelDownload';

export const commands: CliCommand[] = [
  cacheImportCommand,
  cacheMergeCommand,
  collectionImport,
  collectionInfo,
  collectionList,
  conversationEvaluate,
  conversationExport,
  conversationImport,
  evalCompareCommand,
  evalExposureCommand,
  evalGfrc2Command,
  evalIrCommand,
  evalTextCommand,
  experimentExport,
  experimentList,
  experimentShow,
  labelExportCommand,
  labelUtilityCommand,
  modelAddCommand,
  modelAddSimCommand,
  modelDownloadCommand,
  modelInfoCommand,
  modelListCommand,
  modelMakeTinyCommand,
  modelRemoveCommand,
  modelTryCommand,
  modelTuneCommand,
  moiSolveCommand,
  planExportCommand,
  remoteAddCommand,
  remoteEndpointsCommand,
  remoteListCommand,
  remoteRemoveCommand,
  retrieveCommand,
  retrieveSearchCommand,
  richragCoverageCommand,
  runCommand,
  sampleCommand,
  serve,
  simulatePowerCommand,
  statsCompareCommand,
  workspaceCheck,
  workspaceInfo,
  workspaceInit,
  workspaceMigrate,
];
